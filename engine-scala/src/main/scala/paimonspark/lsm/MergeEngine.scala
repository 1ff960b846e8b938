package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Folds the versions of one key, fed oldest first, into the key's current row, or None when the
 * key is gone. Rows passed to `add` stay valid until `reset` (the merge iterator copies them).
 */
trait MergeEngine {
  def reset(): Unit
  def add(row: InternalRow): Unit
  def result(): Option[InternalRow]
}
