package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.UnsupportedFeatureException

/**
 * Paimon's `first-row` engine: the oldest version of a key wins and later ones are ignored.
 * Retractions are an error unless `ignore-delete` drops them. Batch reads of such tables only see
 * files above level 0, so writes compact their level-0 files upwards.
 */
final class FirstRowEngine(ignoreDelete: Boolean) extends MergeEngine {
  private var first: InternalRow = _

  override def reset(): Unit = first = null

  override def add(row: InternalRow): Unit =
    if (KeyValue.isRetract(row)) {
      if (!ignoreDelete) {
        throw new UnsupportedFeatureException("the first-row merge engine cannot take retractions (-U/-D); set " +
          "'ignore-delete' = 'true' to drop them")
      }
    } else if (first == null) first = row

  override def result(): InternalRow = first
}
