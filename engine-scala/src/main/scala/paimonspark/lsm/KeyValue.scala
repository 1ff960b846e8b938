package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{ByteType, LongType, StructField}

import paimonspark.format.KeyValueFields

/**
 * One version of a key as the LSM handles it: a row holding `_SEQUENCE_NUMBER` at 0, `_VALUE_KIND`
 * at 1, then columns. Higher sequence numbers are newer versions of a key.
 */
object KeyValue {
  val SequenceOrdinal = 0
  val KindOrdinal = 1

  /** The system columns, in the order of the ordinals above. */
  val SystemFields: Seq[StructField] = Seq(
    StructField(KeyValueFields.SequenceNumber.name, LongType, nullable = false),
    StructField(KeyValueFields.ValueKind.name, ByteType, nullable = false))

  /** `_VALUE_KIND` / row kind bytes: +I, -U, +U, -D. */
  val Insert: Byte = 0
  val UpdateBefore: Byte = 1
  val UpdateAfter: Byte = 2
  val Delete: Byte = 3

  private val ShortStrings = Seq("+I", "-U", "+U", "-D")

  /** The kind a `rowkind.field` value names (`+I`, `-U`, `+U`, `-D`), if it names one. */
  def kindOf(shortString: String): Option[Byte] = ShortStrings.indexOf(shortString) match {
    case -1 => None
    case i => Some(i.toByte)
  }

  def sequence(row: InternalRow): Long = row.getLong(SequenceOrdinal)
  def kind(row: InternalRow): Byte = row.getByte(KindOrdinal)

  /** -U and -D retract a key; +I and +U add a version of it. */
  def retracts(kind: Byte): Boolean = kind == UpdateBefore || kind == Delete

  def isRetract(row: InternalRow): Boolean = retracts(kind(row))

  /** Versions of one key, oldest first, when no `sequence.field` is set. */
  val bySequence: Ordering[InternalRow] = (a: InternalRow, b: InternalRow) => java.lang.Long.compare(sequence(a), sequence(b))
}
