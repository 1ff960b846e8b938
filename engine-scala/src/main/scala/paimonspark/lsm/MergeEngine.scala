package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Folds the versions of one key, fed oldest first, into the key's merged version. The result may
 * be a retraction (the key is deleted): writers and compactions into lower levels keep it, so it
 * still hides older versions; batch reads drop it. Null means nothing is left to write at all
 * (not an Option: a merge asks for one result per key).
 * Rows passed to `add` stay valid until the result has been used; the engine keeps none of them
 * past `reset`.
 */
trait MergeEngine {
  def reset(): Unit
  def add(row: InternalRow): Unit
  def result(): InternalRow
}
