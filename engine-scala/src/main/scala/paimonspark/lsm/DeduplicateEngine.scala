package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Paimon's default merge engine: the newest version of a key wins, retraction or not. With
 * `ignore-delete`, retractions are dropped before they can win.
 */
final class DeduplicateEngine(ignoreDelete: Boolean) extends MergeEngine {
  private var latest: InternalRow = _

  override def reset(): Unit = latest = null

  override def add(row: InternalRow): Unit =
    if (!(ignoreDelete && KeyValue.isRetract(row))) latest = row

  override def result(): InternalRow = latest
}
