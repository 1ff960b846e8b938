package paimonspark.format

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{ArrayType => SArray, DataType => SType, MapType => SMap, _}

import paimonspark.format.{DataTypes => PaimonTypes}

/**
 * The mapping between Spark types and Paimon types used by Paimon's own Spark connector:
 * Spark TimestampType is `TIMESTAMP(6) WITH LOCAL TIME ZONE`, TimestampNTZType is `TIMESTAMP(6)`,
 * map keys are NOT NULL, and Paimon TIME reads as an int.
 */
object SparkTypes {

  /** Paimon fields from Spark fields, with ids assigned as Java's `Schema.Builder` assigns them. */
  def toPaimonFields(schema: StructType, nextId: () => Int): Seq[DataField] =
    schema.fields.toSeq.map { f =>
      val t = toPaimon(f.dataType, f.name, nextId).withNullable(f.nullable)
      DataField(nextId(), f.name, t, f.getComment())
    }

  def toPaimon(t: SType, column: String, nextId: () => Int): DataType = {
    val raw = CharVarcharUtils.getRawType(new StructField(column, t).metadata).getOrElse(t)
    raw match {
      case BooleanType => PaimonTypes.boolean
      case ByteType => PaimonTypes.tinyint
      case ShortType => PaimonTypes.smallint
      case IntegerType => PaimonTypes.int
      case LongType => PaimonTypes.bigint
      case FloatType => PaimonTypes.float
      case DoubleType => PaimonTypes.double
      case d: DecimalType => PaimonTypes.decimal(d.precision, d.scale)
      case c: CharType => PaimonTypes.char(c.length)
      case v: VarcharType => PaimonTypes.varchar(v.length)
      case _: StringType => PaimonTypes.string
      case BinaryType => PaimonTypes.bytes
      case DateType => PaimonTypes.date
      case TimestampType => PaimonTypes.timestampLtz(6)
      case TimestampNTZType => PaimonTypes.timestamp(6)
      case SArray(e, containsNull) => ArrayType(toPaimon(e, column, nextId).withNullable(containsNull), nullable = true)
      case SMap(k, v, valueNull) =>
        MapType(toPaimon(k, column, nextId).withNullable(false),
          toPaimon(v, column, nextId).withNullable(valueNull), nullable = true)
      case s: StructType => RowType(toPaimonFields(s, nextId), nullable = true)
      case other =>
        throw new IllegalArgumentException(s"column '$column' has type ${other.sql}, which Paimon tables cannot store")
    }
  }

  def toSpark(t: DataType): SType = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => BooleanType
      case TypeRoot.TinyInt => ByteType
      case TypeRoot.SmallInt => ShortType
      case TypeRoot.Int | TypeRoot.Time => IntegerType
      case TypeRoot.BigInt => LongType
      case TypeRoot.Float => FloatType
      case TypeRoot.Double => DoubleType
      case TypeRoot.Decimal => DecimalType(a.precision, a.scale)
      case TypeRoot.Char => CharType(a.precision)
      case TypeRoot.VarChar => if (a.precision == TypeRoot.MaxLength) StringType else VarcharType(a.precision)
      case TypeRoot.Binary | TypeRoot.VarBinary => BinaryType
      case TypeRoot.Date => DateType
      case TypeRoot.Timestamp => TimestampNTZType
      case TypeRoot.TimestampLtz => TimestampType
      case TypeRoot.Other(spelling) => throw new UnsupportedOperationException(s"Paimon type $spelling is not supported yet")
    }
    case a: ArrayType => SArray(toSpark(a.element), a.element.nullable)
    case m: MultisetType => SMap(toSpark(m.element), IntegerType, valueContainsNull = false)
    case m: MapType => SMap(toSpark(m.key), toSpark(m.value), m.value.nullable)
    case r: RowType => toSparkStruct(r.fields, withFieldIds = false)
  }

  /** The Spark schema of some fields; with field ids in the metadata Parquet writers read. */
  def toSparkStruct(fields: Seq[DataField], withFieldIds: Boolean): StructType = StructType(fields.map { f =>
    val meta = new MetadataBuilder()
    if (withFieldIds) meta.putLong("parquet.field.id", f.id.toLong)
    f.description.foreach(meta.putString("comment", _))
    val sparkType = toSpark(f.dataType) match {
      case s: StructType if withFieldIds => toSparkStruct(f.dataType.asInstanceOf[RowType].fields, withFieldIds)
      case other => other
    }
    StructField(f.name, sparkType, f.dataType.nullable, meta.build())
  })

  /**
   * The fields of `fields` that `required` names, in its order, each cut down to the nested fields
   * it names: Spark asks for parts of structs, also inside arrays and map values.
   */
  def prune(fields: Seq[DataField], required: StructType): Seq[DataField] = required.fields.toSeq.map { r =>
    val f = fields.find(_.name.equalsIgnoreCase(r.name)).getOrElse(
      throw new IllegalArgumentException(s"column '${r.name}' is not among ${fields.map(_.name).mkString(", ")}"))
    f.copy(dataType = pruneType(f.dataType, r.dataType))
  }

  private def pruneType(t: DataType, required: SType): DataType = (t, required) match {
    case (r: RowType, s: StructType) => r.copy(fields = prune(r.fields, s))
    case (a: ArrayType, s: SArray) => a.copy(element = pruneType(a.element, s.elementType))
    case (m: MapType, s: SMap) => m.copy(key = pruneType(m.key, s.keyType), value = pruneType(m.value, s.valueType))
    case _ => t
  }

  /** A Paimon type as data files hold it and readers produce it: CHAR/VARCHAR as strings. */
  def physicalType(t: DataType): SType = CharVarcharUtils.replaceCharVarcharWithString(toSpark(t))

  /** The same schema with CHAR/VARCHAR as strings: what data files hold and readers produce. */
  def physical(schema: StructType): StructType = CharVarcharUtils.replaceCharVarcharWithStringInSchema(schema)
}
