package paimonspark.table.write

import scala.collection.mutable

/**
 * Paimon's bucket assignment for dynamic-bucket tables (`bucket` = -1), for one partition and one
 * of `assigners` assigners (keys go to assigner |hash % assigners|; assigner a owns the buckets b
 * with b % assigners == a). A key whose hash is in a bucket's HASH index stays in that bucket; a new
 * key goes to the lowest owned bucket holding fewer than `targetRowNum` keys, else to a new bucket
 * with the lowest free owned id. `existing` holds each bucket's indexed hashes.
 */
final class DynamicBucketAssigner(assignId: Int, assigners: Int, targetRowNum: Long, maxBuckets: Int,
    val existing: Map[Int, Array[Int]]) {
  private val known = mutable.HashMap.empty[Int, Int]
  existing.foreach { case (bucket, hashes) =>
    hashes.foreach(h => if (Bucketing.assignerOf(h, assigners) == assignId) known(h) = bucket)
  }
  private val used = mutable.Set(existing.keys.toSeq: _*)
  private val counts = mutable.TreeMap(existing.collect { case (b, hs) if owns(b) => b -> hs.length.toLong }.toSeq: _*)
  private val added = mutable.HashMap.empty[Int, mutable.Set[Int]]
  private val maxBucketId = (if (maxBuckets < 0) Short.MaxValue.toInt else maxBuckets) - 1

  private def owns(bucket: Int): Boolean = bucket % assigners == assignId

  def assign(hash: Int): Int = known.getOrElse(hash, {
    val bucket = counts.collectFirst { case (b, n) if n < targetRowNum => b }.getOrElse(newBucket())
    counts(bucket) = counts.getOrElse(bucket, 0L) + 1
    known(hash) = bucket
    added.getOrElseUpdate(bucket, mutable.Set.empty) += hash
    bucket
  })

  private def newBucket(): Int =
    (assignId to maxBucketId by assigners).find(b => !used.contains(b)) match {
      case Some(b) => used += b; b
      // Every owned id is taken: Paimon then spreads new keys over the existing owned buckets.
      case None => counts.keys.toSeq(scala.util.Random.nextInt(counts.size))
    }

  /** The hashes added to each bucket since this assigner started. */
  def newHashes: Map[Int, Set[Int]] = added.map { case (b, hs) => b -> hs.toSet }.toMap
}
