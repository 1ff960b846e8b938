package paimonspark.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, GenericInternalRow, Literal}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.{SchemaChangeException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, DataField, DataType, SparkTypes}

/**
 * Column defaults as Paimon keeps them: a field's `defaultValue` is the SQL text of the default
 * (`'Bob'`, `5`), and its value is that text, outer quotes removed, cast to the column's type
 * (`DefaultValueUtils`). Spark evaluates the text itself for the DEFAULT keyword and omitted
 * columns, from the `CURRENT_DEFAULT` metadata of the table's schema; Paimon's writers also write
 * the default in place of a null (`DefaultValueRow`), and so do ours ([[NullsToDefaults]]).
 */
object ColumnDefaults {
  /** Spark's metadata key of a column's default, as Paimon's Spark connector sets it. */
  val MetadataKey = "CURRENT_DEFAULT"

  /** The value of a default, in Spark's representation; refused, naming the column, if it has none. */
  def value(table: String, column: String, dataType: DataType, text: String): Any = dataType match {
    case _: AtomicType =>
      val unquoted = if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) text.substring(1, text.length - 1)
        else text
      val sparkType = SparkTypes.physicalType(dataType)
      val cast = Cast(Literal(UTF8String.fromString(unquoted)), sparkType, Some(SQLConf.get.sessionLocalTimeZone), EvalMode.TRY)
      Option(cast.eval()).getOrElse(throw new SchemaChangeException(table, column, s"table $table: column '$column': " +
        s"Unsupported default value `$text` for type ${dataType.sql}; a Paimon default is a constant of the column's type"))
    case _ => throw new UnsupportedFeatureException(s"table $table: column '$column' has type ${dataType.sql}; " +
      "defaults of ARRAY, MAP and ROW columns are not supported yet", "default value")
  }

  /** Refuses a default Paimon could not turn into a value, before anything is written. */
  def check(table: String, field: DataField): Unit =
    field.defaultValue.foreach(value(table, field.name, field.dataType, _))

  /** Rows of `fields` with each null of a column that has a default replaced by the default, as Paimon writes them. */
  final class NullsToDefaults(table: String, fields: Seq[DataField]) extends Serializable {
    private val defaults = fields.zipWithIndex.collect { case (f, i) if f.defaultValue.isDefined =>
      i -> value(table, f.name, f.dataType, f.defaultValue.get)
    }.toArray
    private val types = fields.map(f => SparkTypes.physicalType(f.dataType))

    def apply(row: InternalRow): InternalRow =
      if (!defaults.exists { case (i, _) => row.isNullAt(i) }) row
      else {
        val filled = new GenericInternalRow(row.toSeq(types).toArray)
        defaults.foreach { case (i, v) => if (filled.isNullAt(i)) filled.update(i, v) }
        filled
      }
  }
}
