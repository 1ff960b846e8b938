package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Folds the versions of one key, fed oldest first, into the key's merged version. The result may
 * be a retraction (the key is deleted): writers and compactions into lower levels keep it, so it
 * still hides older versions; batch reads drop it. None means nothing is left to write at all.
 * Rows passed to `add` stay valid until the result has been used; the engine keeps none of them
 * past `reset`.
 */
trait MergeEngine {
  def reset(): Unit
  def add(row: InternalRow): Unit
  def result(): Option[InternalRow]
}
