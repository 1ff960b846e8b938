package paimonspark.lsm

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A k-way merge of sorted runs (each a key-sorted iterator over copied rows) that hands each key's
 * versions, oldest first, to a merge engine and yields the engine's results. Versions are ordered
 * as Paimon's sort-merge reader orders them: by `sequence.field` if set, then `_SEQUENCE_NUMBER`.
 * Batch reads drop merged retractions; writers keep them, so they still hide older files.
 */
final class SortedRunMerge(
    runs: Seq[Iterator[InternalRow]],
    keyOrdering: Ordering[InternalRow],
    engine: MergeEngine,
    versionOrdering: Ordering[InternalRow] = KeyValue.bySequence,
    dropRetractions: Boolean = true) extends Iterator[InternalRow] {

  import SortedRunMerge.Head

  private val byKeyThenVersion: Ordering[Head] = (a: Head, b: Head) => {
    val byKey = keyOrdering.compare(a.row, b.row)
    if (byKey != 0) byKey else versionOrdering.compare(a.row, b.row)
  }
  // A max-heap, reversed: the smallest (key, version) comes out first.
  private val heads = mutable.PriorityQueue.empty[Head](byKeyThenVersion.reverse)
  private var pending: Option[InternalRow] = None
  // One run (a writer's sorted buffer) needs no heap: versions of a key are already adjacent, in order.
  private val single = runs.size == 1
  private var lookahead: InternalRow = _

  private def advance(run: Int): Unit = if (runs(run).hasNext) {
    if (single) lookahead = runs(run).next() else heads.enqueue(Head(runs(run).next(), run))
  }

  runs.indices.foreach(advance)

  private def mergeSingleRun(): Unit = while (pending.isEmpty && lookahead != null) {
    engine.reset()
    val first = lookahead
    lookahead = null
    engine.add(first)
    advance(0)
    while (lookahead != null && keyOrdering.compare(lookahead, first) == 0) {
      engine.add(lookahead)
      lookahead = null
      advance(0)
    }
    pending = engine.result()
    if (dropRetractions) pending = pending.filterNot(KeyValue.isRetract)
  }

  override def hasNext: Boolean = {
    if (single) mergeSingleRun()
    while (pending.isEmpty && heads.nonEmpty) {
      engine.reset()
      val first = heads.dequeue()
      engine.add(first.row)
      advance(first.run)
      while (heads.nonEmpty && keyOrdering.compare(heads.head.row, first.row) == 0) {
        val same = heads.dequeue()
        engine.add(same.row)
        advance(same.run)
      }
      pending = engine.result()
      if (dropRetractions) pending = pending.filterNot(KeyValue.isRetract)
    }
    pending.nonEmpty
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = pending.get
    pending = None
    row
  }
}

private object SortedRunMerge {
  final case class Head(row: InternalRow, run: Int)
}
