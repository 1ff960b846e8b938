package paimonspark.format.orc

import scala.jdk.CollectionConverters._

import org.apache.orc.TypeDescription
import org.apache.orc.TypeDescription.Category
import org.apache.spark.sql.types.{ArrayType, BinaryType, BooleanType, ByteType, DataType, DateType, DecimalType, DoubleType,
  FloatType, IntegerType, LongType, MapType, ShortType, StringType, StructType, TimestampNTZType, TimestampType}

/**
 * Whether an ORC file holds each column in the ORC type Paimon's writer gives its type. ORC's reader
 * converts between types on its own (an INT read as a TIMESTAMP is that many seconds), so a file that
 * contradicts its schema would read as wrong values: it is found before the file is read.
 */
object OrcFileTypes {
  /** What the first column `file` holds differently from `requested` (matched by name, as Spark's reader does). */
  def contradiction(file: TypeDescription, requested: StructType): Option[String] = fields(None, file, requested)

  /** The first of `struct`'s fields that `file` holds in another type; fields it lacks (added since) are none. */
  private def fields(path: Option[String], file: TypeDescription, struct: StructType): Option[String] = {
    val columns = file.getFieldNames.asScala.map(_.toLowerCase).zip(file.getChildren.asScala).toMap
    struct.fields.iterator.flatMap { f =>
      columns.get(f.name.toLowerCase).flatMap(of(path.fold(f.name)(p => s"$p.${f.name}"), _, f.dataType))
    }.nextOption()
  }

  private def of(path: String, file: TypeDescription, wanted: DataType): Option[String] = (wanted, file.getCategory) match {
    case (a: ArrayType, Category.LIST) => of(s"$path.element", file.getChildren.get(0), a.elementType)
    case (m: MapType, Category.MAP) =>
      of(s"$path.key", file.getChildren.get(0), m.keyType).orElse(of(s"$path.value", file.getChildren.get(1), m.valueType))
    case (s: StructType, Category.STRUCT) => fields(Some(path), file, s)
    case (t @ (_: ArrayType | _: MapType | _: StructType), category) => contradicts(path, category, t)
    // A type not listed is left to ORC's reader.
    case (t, category) if categories(t).isEmpty || categories(t)(category) => None
    case (t, category) => contradicts(path, category, t)
  }

  private def contradicts(path: String, category: Category, t: DataType): Option[String] =
    Some(s"column '$path' is stored as ORC ${category.getName}, which does not hold its ${t.sql}")

  private def categories(t: DataType): Set[Category] = t match {
    case BooleanType => Set(Category.BOOLEAN)
    case ByteType => Set(Category.BYTE)
    case ShortType => Set(Category.SHORT)
    case IntegerType => Set(Category.INT)
    case LongType => Set(Category.LONG)
    case FloatType => Set(Category.FLOAT)
    case DoubleType => Set(Category.DOUBLE)
    case _: StringType => Set(Category.STRING, Category.VARCHAR, Category.CHAR)
    case BinaryType => Set(Category.BINARY)
    case DateType => Set(Category.DATE)
    case _: DecimalType => Set(Category.DECIMAL)
    case TimestampType | TimestampNTZType => Set(Category.TIMESTAMP, Category.TIMESTAMP_INSTANT)
    case _ => Set.empty
  }
}
