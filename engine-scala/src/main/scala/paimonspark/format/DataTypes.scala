package paimonspark.format

/**
 * Paimon's logical types, as written in `schema/schema-N`. Nullability is part of the type, as in
 * Paimon, so that `INT NOT NULL` and `INT` are different values.
 */
sealed trait DataType extends Serializable {
  def nullable: Boolean
  def withNullable(nullable: Boolean): DataType
  /** The SQL spelling Java's `asSQLString` produces, without the NOT NULL suffix. */
  def typeName: String
  def sql: String = if (nullable) typeName else s"$typeName NOT NULL"
}

/** Types with no children. `name` is the SQL keyword and `params` its arguments. */
final case class AtomicType(root: TypeRoot, params: Seq[Int], nullable: Boolean) extends DataType {
  def withNullable(n: Boolean): AtomicType = copy(nullable = n)
  def precision: Int = params.headOption.getOrElse(0)
  def scale: Int = if (params.size > 1) params(1) else 0
  def typeName: String = root.render(params)
}

final case class ArrayType(element: DataType, nullable: Boolean) extends DataType {
  def withNullable(n: Boolean): ArrayType = copy(nullable = n)
  def typeName: String = s"ARRAY<${element.sql}>"
}

final case class MultisetType(element: DataType, nullable: Boolean) extends DataType {
  def withNullable(n: Boolean): MultisetType = copy(nullable = n)
  def typeName: String = s"MULTISET<${element.sql}>"
}

final case class MapType(key: DataType, value: DataType, nullable: Boolean) extends DataType {
  def withNullable(n: Boolean): MapType = copy(nullable = n)
  def typeName: String = s"MAP<${key.sql}, ${value.sql}>"
}

final case class RowType(fields: Seq[DataField], nullable: Boolean) extends DataType {
  def withNullable(n: Boolean): RowType = copy(nullable = n)
  def typeName: String = fields.map(_.sql).mkString("ROW<", ", ", ">")
}

final case class DataField(
    id: Int,
    name: String,
    dataType: DataType,
    description: Option[String] = None,
    defaultValue: Option[String] = None) {
  /** As Java's `DataField.asSQLString` spells a row's field: quoted name, type, comment and default. */
  def sql: String = s"`${name.replace("`", "``")}` ${dataType.sql}" +
    description.filter(_.nonEmpty).fold("")(d => s" COMMENT '${d.replace("'", "''")}'") +
    defaultValue.fold("")(v => s" DEFAULT $v")
}

/** The root of an atomic type and how Java spells it. */
sealed abstract class TypeRoot(val keyword: String) extends Serializable {
  def render(params: Seq[Int]): String = keyword
}

object TypeRoot {
  val MaxLength: scala.Int = scala.Int.MaxValue

  case object Boolean extends TypeRoot("BOOLEAN")
  case object TinyInt extends TypeRoot("TINYINT")
  case object SmallInt extends TypeRoot("SMALLINT")
  case object Int extends TypeRoot("INT")
  case object BigInt extends TypeRoot("BIGINT")
  case object Float extends TypeRoot("FLOAT")
  case object Double extends TypeRoot("DOUBLE")
  case object Date extends TypeRoot("DATE")
  case object Decimal extends TypeRoot("DECIMAL") {
    override def render(p: Seq[Int]): String = s"DECIMAL(${p(0)}, ${p(1)})"
  }
  case object Char extends TypeRoot("CHAR") {
    override def render(p: Seq[Int]): String = s"CHAR(${p(0)})"
  }
  case object VarChar extends TypeRoot("VARCHAR") {
    override def render(p: Seq[Int]): String = if (p(0) == MaxLength) "STRING" else s"VARCHAR(${p(0)})"
  }
  case object Binary extends TypeRoot("BINARY") {
    override def render(p: Seq[Int]): String = s"BINARY(${p(0)})"
  }
  case object VarBinary extends TypeRoot("VARBINARY") {
    override def render(p: Seq[Int]): String = if (p(0) == MaxLength) "BYTES" else s"VARBINARY(${p(0)})"
  }
  case object Time extends TypeRoot("TIME") {
    override def render(p: Seq[Int]): String = s"TIME(${p(0)})"
  }
  case object Timestamp extends TypeRoot("TIMESTAMP") {
    override def render(p: Seq[Int]): String = s"TIMESTAMP(${p(0)})"
  }
  case object TimestampLtz extends TypeRoot("TIMESTAMP_LTZ") {
    override def render(p: Seq[Int]): String = s"TIMESTAMP(${p(0)}) WITH LOCAL TIME ZONE"
  }
  /** Types we carry through schemas unchanged but cannot read or write yet. */
  final case class Other(spelling: String) extends TypeRoot(spelling)
}

object DataTypes {
  import TypeRoot._

  def boolean: AtomicType = AtomicType(Boolean, Nil, nullable = true)
  def tinyint: AtomicType = AtomicType(TinyInt, Nil, nullable = true)
  def smallint: AtomicType = AtomicType(SmallInt, Nil, nullable = true)
  def int: AtomicType = AtomicType(Int, Nil, nullable = true)
  def bigint: AtomicType = AtomicType(BigInt, Nil, nullable = true)
  def float: AtomicType = AtomicType(Float, Nil, nullable = true)
  def double: AtomicType = AtomicType(Double, Nil, nullable = true)
  def date: AtomicType = AtomicType(Date, Nil, nullable = true)
  def string: AtomicType = AtomicType(VarChar, Seq(MaxLength), nullable = true)
  def bytes: AtomicType = AtomicType(VarBinary, Seq(MaxLength), nullable = true)
  def decimal(p: scala.Int, s: scala.Int): AtomicType = AtomicType(Decimal, Seq(p, s), nullable = true)
  def char(n: scala.Int): AtomicType = AtomicType(Char, Seq(n), nullable = true)
  def varchar(n: scala.Int): AtomicType = AtomicType(VarChar, Seq(n), nullable = true)
  def timestamp(p: scala.Int): AtomicType = AtomicType(Timestamp, Seq(p), nullable = true)
  def timestampLtz(p: scala.Int): AtomicType = AtomicType(TimestampLtz, Seq(p), nullable = true)

  /**
   * The type at a column path: names of nested fields, with one segment (`element`, `value`) for
   * each array or map on the way; None if there is no such column.
   */
  def typeAt(fields: Seq[DataField], path: Seq[String]): Option[DataType] =
    fields.find(_.name == path.head).flatMap(f => inside(f.dataType, path.tail))

  private def inside(t: DataType, path: Seq[String]): Option[DataType] =
    if (path.isEmpty) Some(t)
    else t match {
      case r: RowType => typeAt(r.fields, path)
      case a: ArrayType => inside(a.element, path.tail)
      case m: MapType => inside(m.value, path.tail)
      case _ => None
    }

  /** Field ids of a type's nested row fields, depth first. */
  def nestedFieldIds(t: DataType): Seq[scala.Int] = t match {
    case r: RowType => r.fields.flatMap(f => f.id +: nestedFieldIds(f.dataType))
    case a: ArrayType => nestedFieldIds(a.element)
    case m: MultisetType => nestedFieldIds(m.element)
    case m: MapType => nestedFieldIds(m.key) ++ nestedFieldIds(m.value)
    case _ => Nil
  }
}
