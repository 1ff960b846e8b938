package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, InterpretedOrdering, SortOrder}

import paimonspark.format.{DataType, SparkTypes}
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.DataFileMeta

/** Key ranges of data files (`_MIN_KEY`, `_MAX_KEY`), compared in the order data files are sorted by. */
final class KeyRanges(keyTypes: Seq[DataType]) {
  val ordering: Ordering[InternalRow] = new InterpretedOrdering(keyTypes.zipWithIndex.map { case (t, i) =>
    SortOrder(BoundReference(i, SparkTypes.physicalType(t), nullable = true), Ascending)
  })

  def minKey(f: DataFileMeta): InternalRow = BinaryRow.deserialize(keyTypes, f.minKey)
  def maxKey(f: DataFileMeta): InternalRow = BinaryRow.deserialize(keyTypes, f.maxKey)

  def byMinKey(files: Seq[DataFileMeta]): Seq[DataFileMeta] = files.map(f => (minKey(f), f)).sortBy(_._1)(ordering).map(_._2)

  /**
   * The files of one bucket cut into sections, in key order: files whose key ranges overlap, even
   * through other files, share a section; different sections share no key, so each can be read on
   * its own (Paimon's `IntervalPartition`).
   */
  def sections(files: Seq[DataFileMeta]): Seq[Seq[DataFileMeta]] = {
    val sorted = files.map(f => (minKey(f), maxKey(f), f)).sortWith { (a, b) =>
      val byMin = ordering.compare(a._1, b._1)
      if (byMin != 0) byMin < 0 else ordering.lt(a._2, b._2)
    }
    val out = Seq.newBuilder[Seq[DataFileMeta]]
    var current = Seq.newBuilder[DataFileMeta]
    var bound: InternalRow = null
    sorted.foreach { case (min, max, f) =>
      if (bound != null && ordering.gt(min, bound)) {
        out += current.result()
        current = Seq.newBuilder[DataFileMeta]
        bound = null
      }
      current += f
      if (bound == null || ordering.gt(max, bound)) bound = max
    }
    if (bound != null) out += current.result()
    out.result()
  }

  /**
   * Whether one bucket's `files` hold each key once, merged, so that their rows read as they are are the
   * bucket's (Paimon's `rawConvertible` splits): all above level 0 without retractions, at one level, or
   * at any (`anyLevel`: deletion vectors, or first-row, keep each key in one file there); else each
   * section one file without retractions. A count of retractions not recorded counts as none, as in Paimon.
   */
  def oneVersionPerKey(files: Seq[DataFileMeta], anyLevel: Boolean): Boolean = {
    def noRetractions(f: DataFileMeta) = f.deleteRowCount.forall(_ == 0L)
    (files.forall(f => f.level > 0 && noRetractions(f)) && (anyLevel || files.map(_.level).distinct.size == 1)) ||
      sections(files).forall(s => s.size == 1 && noRetractions(s.head))
  }

  /** Whether `file`'s key range meets the key range of any of `others`. */
  def meetsAny(file: DataFileMeta, others: Seq[DataFileMeta]): Boolean = {
    val (min, max) = (minKey(file), maxKey(file))
    others.exists(o => ordering.lteq(min, maxKey(o)) && ordering.lteq(minKey(o), max))
  }

  /** Two files of `files` (one level of one bucket) whose key ranges overlap, if any. */
  def firstOverlap(files: Seq[DataFileMeta]): Option[(DataFileMeta, DataFileMeta)] =
    byMinKey(files).sliding(2).collectFirst {
      case Seq(a, b) if ordering.gteq(maxKey(a), minKey(b)) => (a, b)
    }
}
