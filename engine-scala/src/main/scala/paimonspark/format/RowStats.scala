package paimonspark.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Column statistics gathered from the rows written, for formats whose writers keep none Paimon reads
 * (Avro) or keep them in their own terms (ORC's wall-clock timestamps): as Paimon's stats collectors
 * do. The same columns get bounds as from a Parquet footer (booleans, integers, dates, timestamps,
 * decimals, strings); the others null counts only.
 */
final class RowStats(schema: StructType) extends FileStats {
  private val columns: Array[ColumnBounds] = schema.fields.zipWithIndex.map { case (f, i) => ColumnBounds.of(f.dataType, i) }
  private val byName = schema.fieldNames.zip(columns).toMap

  def update(row: InternalRow): Unit = {
    var i = 0
    while (i < columns.length) { columns(i).update(row); i += 1 }
  }

  override def column(name: String): ColumnStats = byName.get(name).fold(ColumnStats.Unknown)(_.stats)
}

/** The bounds and null count of one column, updated row by row. */
private abstract class ColumnBounds(ordinal: Int) {
  private var nulls = 0L
  protected var min: Any = _
  protected var max: Any = _

  final def update(row: InternalRow): Unit = if (row.isNullAt(ordinal)) nulls += 1 else add(row, ordinal)
  protected def add(row: InternalRow, ordinal: Int): Unit
  def stats: ColumnStats = ColumnStats(min, max, Some(nulls))
}

private object ColumnBounds {
  def of(t: DataType, ordinal: Int): ColumnBounds = t match {
    case BooleanType => ordered(ordinal)(_.getBoolean(_))
    case ByteType => ordered(ordinal)(_.getByte(_))
    case ShortType => ordered(ordinal)(_.getShort(_))
    case IntegerType | DateType => ordered(ordinal)(_.getInt(_))
    case LongType | TimestampType | TimestampNTZType => ordered(ordinal)(_.getLong(_))
    case d: DecimalType => ordered[Decimal](ordinal)(_.getDecimal(_, d.precision, d.scale))
    // The row's string may be a view of a buffer the next row reuses: a new bound is copied.
    case _: StringType => ordered[UTF8String](ordinal)(_.getUTF8String(_), _.copy())
    case _ => new ColumnBounds(ordinal) { override protected def add(row: InternalRow, ordinal: Int): Unit = () }
  }

  private def ordered[T](ordinal: Int)(get: (InternalRow, Int) => T, keep: T => T = identity[T] _)(
      implicit ordering: Ordering[T]): ColumnBounds = new ColumnBounds(ordinal) {
    override protected def add(row: InternalRow, ordinal: Int): Unit = {
      val v = get(row, ordinal)
      if (min == null || ordering.lt(v, min.asInstanceOf[T])) min = keep(v)
      if (max == null || ordering.gt(v, max.asInstanceOf[T])) max = keep(v)
    }
  }
}
