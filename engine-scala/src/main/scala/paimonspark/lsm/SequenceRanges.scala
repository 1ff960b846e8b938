package paimonspark.lsm

import paimonspark.format.metadata.DataFileMeta

/**
 * The `_SEQUENCE_NUMBER` ranges of data files. A key occurs at most once per file, so when every two
 * files that may share a key have disjoint ranges, the order of their ranges is the order of that
 * key's versions: a merge on read can stand each file's highest sequence number in for the column,
 * and not read it. Files whose key ranges do not meet (those of one level) may overlap in sequence.
 */
object SequenceRanges {
  /** Whether every two of `files` whose key ranges overlap have disjoint [min, max] sequence ranges. */
  def disjointWhereKeysMeet(files: Seq[DataFileMeta], keys: KeyRanges): Boolean = {
    val bounded = files.map(f => (keys.minKey(f), keys.maxKey(f), f))
    bounded.combinations(2).forall {
      case Seq((minA, maxA, a), (minB, maxB, b)) =>
        val keysMeet = keys.ordering.lteq(minA, maxB) && keys.ordering.lteq(minB, maxA)
        !keysMeet || a.maxSequenceNumber < b.minSequenceNumber || b.maxSequenceNumber < a.minSequenceNumber
      case _ => true
    }
  }
}
