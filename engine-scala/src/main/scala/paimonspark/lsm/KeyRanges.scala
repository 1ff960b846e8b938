package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, InterpretedOrdering, SortOrder}

import paimonspark.format.{BinaryRow, DataFileMeta, DataType, SparkTypes}

/** Key ranges of data files (`_MIN_KEY`, `_MAX_KEY`), compared in the order data files are sorted by. */
final class KeyRanges(keyTypes: Seq[DataType]) {
  val ordering: Ordering[InternalRow] = new InterpretedOrdering(keyTypes.zipWithIndex.map { case (t, i) =>
    SortOrder(BoundReference(i, SparkTypes.physicalType(t), nullable = true), Ascending)
  })

  def minKey(f: DataFileMeta): InternalRow = BinaryRow.deserialize(keyTypes, f.minKey)
  def maxKey(f: DataFileMeta): InternalRow = BinaryRow.deserialize(keyTypes, f.maxKey)

  def byMinKey(files: Seq[DataFileMeta]): Seq[DataFileMeta] = files.map(f => (minKey(f), f)).sortBy(_._1)(ordering).map(_._2)

  /** Two files of `files` (one level of one bucket) whose key ranges overlap, if any. */
  def firstOverlap(files: Seq[DataFileMeta]): Option[(DataFileMeta, DataFileMeta)] =
    byMinKey(files).sliding(2).collectFirst {
      case Seq(a, b) if ordering.gteq(maxKey(a), minKey(b)) => (a, b)
    }
}
