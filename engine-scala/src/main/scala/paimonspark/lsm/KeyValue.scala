package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{ByteType, LongType, StructField}

/**
 * One record of a primary-key data file as read back: the row holds `_SEQUENCE_NUMBER` at 0,
 * `_VALUE_KIND` at 1, then value columns. Higher sequence numbers are newer versions of a key.
 */
object KeyValue {
  val SequenceOrdinal = 0
  val KindOrdinal = 1

  /** The system columns of primary-key data files, in the order of the ordinals above. */
  val SystemFields: Seq[StructField] = Seq(
    StructField("_SEQUENCE_NUMBER", LongType, nullable = false),
    StructField("_VALUE_KIND", ByteType, nullable = false))

  /** `_VALUE_KIND` / row kind bytes: +I, -U, +U, -D. */
  val Insert: Byte = 0
  val UpdateBefore: Byte = 1
  val UpdateAfter: Byte = 2
  val Delete: Byte = 3

  def sequence(row: InternalRow): Long = row.getLong(SequenceOrdinal)
  def kind(row: InternalRow): Byte = row.getByte(KindOrdinal)

  /** -U and -D retract a key; +I and +U add a version of it. */
  def isRetract(row: InternalRow): Boolean = {
    val k = kind(row)
    k == UpdateBefore || k == Delete
  }
}
