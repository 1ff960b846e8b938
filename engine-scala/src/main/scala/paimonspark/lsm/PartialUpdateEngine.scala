package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException

/**
 * Paimon's `partial-update` engine: each value column takes the newest non-null value of the key.
 * Retractions are skipped with `ignore-delete`. With `partial-update.remove-record-on-delete` a -D
 * removes the row so far and becomes the result, so it hides older files' versions, and -U is
 * skipped. Any other retraction is an error, as in Paimon.
 */
final class PartialUpdateEngine(schema: StructType, valueOrdinals: Seq[Int], ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean) extends MergeEngine {
  private val isValue: Array[Boolean] = Array.tabulate(schema.length)(valueOrdinals.contains)
  private var merged: Array[Any] = _
  private var deletion: InternalRow = _

  override def reset(): Unit = {
    merged = null
    deletion = null
  }

  override def add(row: InternalRow): Unit = {
    if (KeyValue.isRetract(row)) {
      if (ignoreDelete) ()
      else if (removeRecordOnDelete) {
        if (KeyValue.kind(row) == KeyValue.Delete) {
          merged = null
          deletion = row
        }
      } else {
        throw new UnsupportedFeatureException("a partial-update table holds a retraction (-U/-D); Paimon only allows " +
          "that with ignore-delete or partial-update.remove-record-on-delete")
      }
    } else {
      if (merged == null) merged = new Array[Any](schema.length)
      deletion = null
      // Sequence, kind and key come from the newest version; value columns only when not null.
      (0 until schema.length).foreach { i =>
        if (!isValue(i) || !row.isNullAt(i)) merged(i) = row.get(i, schema(i).dataType)
      }
    }
  }

  override def result(): Option[InternalRow] =
    if (deletion != null) Some(deletion) else Option(merged).map(m => new GenericInternalRow(m.clone()))
}
