package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Paimon's default merge engine: the newest version of a key wins; if it is a retraction (-U/-D)
 * the key is gone. With `ignore-delete`, retractions are dropped before they can win.
 */
final class DeduplicateEngine(ignoreDelete: Boolean) extends MergeEngine {
  private var latest: InternalRow = _

  override def reset(): Unit = latest = null

  override def add(row: InternalRow): Unit =
    if (!(ignoreDelete && KeyValue.isRetract(row))) latest = row

  override def result(): Option[InternalRow] = Option(latest).filterNot(KeyValue.isRetract)
}
