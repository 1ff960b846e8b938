package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The deduplicate merge of a writer's sorted buffer whose versions of a key come newest first
 * (sorted by bucket, then an integral key, then arrival descending): each key's first version is its
 * result. Unlike [[SortedRunMerge]] over a buffer sorted oldest first, it never reads past a result
 * before the caller has used it (a filter), so the buffer's rows are neither copied nor handed to an
 * engine: a writer's flush, where every row of an upsert batch is a result. Retractions win as they
 * do in [[DeduplicateEngine]] for writers; with `ignoreDelete`, a key's newest version that is not one.
 */
object NewestVersions {
  def of(sorted: Iterator[InternalRow], bucketOrdinal: Int, key: IntegralKey,
      ignoreDelete: Boolean): Iterator[InternalRow] = {
    var started = false
    var bucket = 0
    var current = 0L
    var taken = false // whether the current key has had its result
    sorted.filter { row =>
      val b = row.getInt(bucketOrdinal)
      val k = key.of(row)
      if (!started || b != bucket || k != current) {
        started = true
        bucket = b
        current = k
        taken = false
      }
      val result = !taken && !(ignoreDelete && KeyValue.isRetract(row))
      if (result) taken = true
      result
    }
  }
}
