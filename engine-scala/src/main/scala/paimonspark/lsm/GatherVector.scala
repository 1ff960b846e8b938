package paimonspark.lsm

import scala.annotation.switch

import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnarArray, ColumnarMap, ColumnVector}
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.DataFileReader

/**
 * Which row of which source each position of a gathered batch is: `runs(i)` indexes the sources,
 * `rows(i)` is the row within that source's current batch.
 */
final class Selection(val capacity: Int) {
  val runs = new Array[Int](capacity)
  val rows = new Array[Int](capacity)
  var size = 0

  def add(run: Int, row: Int): Unit = {
    runs(size) = run
    rows(size) = row
    size += 1
  }
}

/**
 * A column of a batch whose rows are rows of other batches: the merge's results, read in place
 * from the runs they came from instead of copied. Struct columns gather their fields the same way,
 * so nested rows keep pointing at the sources.
 */
final class GatherVector(dataType: DataType, runCount: Int, selection: Selection)
    extends ColumnVector(dataType) {

  private val runs = selection.runs
  private val rows = selection.rows
  private val sources = new Array[ColumnVector](runCount)
  private val fields: Array[GatherVector] = dataType match {
    case struct: StructType => struct.fields.map(f => new GatherVector(f.dataType, runCount, selection))
    case _ => Array.empty
  }

  /** Points this column at column `ordinal` of each run's current batch. */
  def gatherFrom(runs: Array[_ <: DataFileReader.Batched], ordinal: Int): Unit =
    gatherFrom(r => { val batch = runs(r).batch; if (batch == null) null else batch.column(ordinal) })

  /** Points this column at each run's column (null for a run without a batch). */
  def gatherFrom(columns: Int => ColumnVector): Unit = {
    var r = 0
    while (r < runCount) { sources(r) = columns(r); r += 1 }
    fields.indices.foreach(i => fields(i).gatherFrom(r => Option(sources(r)).map(_.getChild(i)).orNull))
  }

  /**
   * Copies the selected values into `out`, for a type [[GatherVector.copies]]: a plain vector, which
   * Spark's generated code reads without looking up a run and a row for every value (a merge-on-read
   * scan of 5 runs at 7 M keys, in alternating JVMs: 0.69x-0.71x of the compacted scan's CPU with its
   * fixed-width columns copied, 0.66x read in place). One loop per type, and none asks for nulls
   * when no run's column holds one: the per-value type switch and null check were half the copy's
   * samples (async-profiler).
   */
  def copyTo(out: WritableColumnVector): Unit = {
    out.reset()
    val nulls = mayHoldNulls
    val n = selection.size
    var i = 0
    // Decimals every run holds unscaled in an int or a long (as `out` does) are copied as those numbers.
    val kind = (GatherVector.copyKind(dataType), dataType) match {
      case (0, d: DecimalType) if unscaledInPlace => if (d.precision <= Decimal.MAX_INT_DIGITS) 4 else 5
      case (k, _) => k
    }
    (kind: @switch) match {
      case 0 =>
        val decimal = dataType.asInstanceOf[DecimalType]
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i)
          else out.putDecimal(i, s.getDecimal(r, decimal.precision, decimal.scale), decimal.precision)
          i += 1
        }
      case 1 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putBoolean(i, s.getBoolean(r))
          i += 1
        }
      case 2 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putByte(i, s.getByte(r))
          i += 1
        }
      case 3 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putShort(i, s.getShort(r))
          i += 1
        }
      case 4 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putInt(i, s.getInt(r))
          i += 1
        }
      case 5 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putLong(i, s.getLong(r))
          i += 1
        }
      case 6 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putFloat(i, s.getFloat(r))
          i += 1
        }
      case 7 =>
        while (i < n) {
          val s = sources(runs(i)); val r = rows(i)
          if (nulls && s.isNullAt(r)) out.putNull(i) else out.putDouble(i, s.getDouble(r))
          i += 1
        }
    }
  }

  // Whether every source holds this column's decimals as Spark's writable vectors do: unscaled, in an int or a long.
  private def unscaledInPlace: Boolean = sources.forall(s => s == null || s.isInstanceOf[WritableColumnVector] && s.dataType == dataType)

  // Whether a source column may hold a null: a run's column that says it holds none is not asked per value.
  private def mayHoldNulls: Boolean = sources.exists(s => s != null && s.hasNull)

  override def close(): Unit = ()
  override def hasNull: Boolean = numNulls() > 0
  override def numNulls(): Int = (0 until selection.size).count(isNullAt)

  override def isNullAt(i: Int): Boolean = sources(runs(i)).isNullAt(rows(i))
  override def getBoolean(i: Int): Boolean = sources(runs(i)).getBoolean(rows(i))
  override def getByte(i: Int): Byte = sources(runs(i)).getByte(rows(i))
  override def getShort(i: Int): Short = sources(runs(i)).getShort(rows(i))
  override def getInt(i: Int): Int = sources(runs(i)).getInt(rows(i))
  override def getLong(i: Int): Long = sources(runs(i)).getLong(rows(i))
  override def getFloat(i: Int): Float = sources(runs(i)).getFloat(rows(i))
  override def getDouble(i: Int): Double = sources(runs(i)).getDouble(rows(i))
  override def getArray(i: Int): ColumnarArray = sources(runs(i)).getArray(rows(i))
  override def getMap(i: Int): ColumnarMap = sources(runs(i)).getMap(rows(i))
  override def getDecimal(i: Int, precision: Int, scale: Int): Decimal = sources(runs(i)).getDecimal(rows(i), precision, scale)
  override def getUTF8String(i: Int): UTF8String = sources(runs(i)).getUTF8String(rows(i))
  override def getBinary(i: Int): Array[Byte] = sources(runs(i)).getBinary(rows(i))
  override def getChild(ordinal: Int): ColumnVector = fields(ordinal)
}

object GatherVector {
  /**
   * Whether columns of `dataType` are copied out of the runs' batches: fixed-width values (decimals
   * held in a long). Strings and nested values are read in place: copying their bytes would cost
   * what the lookup saves.
   */
  def copies(dataType: DataType): Boolean = copyKind(dataType) >= 0

  // Which get and put copy a value of `dataType` (copyTo's cases), -1 for none.
  private def copyKind(dataType: DataType): Int = dataType match {
    case d: DecimalType => if (d.precision <= Decimal.MAX_LONG_DIGITS) 0 else -1
    case BooleanType => 1
    case ByteType => 2
    case ShortType => 3
    case IntegerType | DateType | _: YearMonthIntervalType => 4
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => 5
    case FloatType => 6
    case DoubleType => 7
    case _ => -1
  }
}
