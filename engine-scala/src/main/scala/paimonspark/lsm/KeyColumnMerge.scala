package paimonspark.lsm

import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.StructType

import paimonspark.format.DataFileReader

/**
 * How a merge of runs read as column batches fills a batch of results: it adds the places
 * (run, row) of merged results to the selection until the selection is full, or a run it holds
 * rows of would have to move to its next batch (the selected rows must be used first), or the
 * runs end (false).
 */
trait SectionMerge {
  def fill(selection: Selection): Boolean
}

/**
 * The deduplicate merge of runs, done on their column batches: the key (one integral column),
 * sequence number and kind of each run's batch are read into arrays once, and each key's newest
 * version is found by comparing numbers, without a row per version or a call per value. A stretch
 * of keys that only one run holds is taken in one loop. Its results are those of [[SortedRunMerge]]
 * with the deduplicate engine ordered by sequence number: reads drop merged retractions, a
 * compaction that must keep them (`keepRetractions`) keeps the newest, and with `ignoreDelete` no
 * retraction wins.
 */
final class KeyColumnMerge(runs: Array[_ <: DataFileReader.Batched], key: IntegralKey, ignoreDelete: Boolean,
    keepRetractions: Boolean = false) extends SectionMerge {
  private val n = runs.length
  private val keys = new Array[Array[Long]](n)
  private val sequences = new Array[Array[Long]](n)  // null: the batch's sequence number is `sequence`
  private val sequence = new Array[Long](n)
  private val kinds = new Array[Array[Byte]](n)
  private val position = new Array[Int](n)
  private val size = new Array[Int](n)
  private val ended = new Array[Boolean](n)
  // Runs holding rows of the selection being filled: they may not move to their next batch.
  private val holding = new Array[Boolean](n)

  private def load(r: Int): Unit =
    if (!runs(r).nextBatch()) ended(r) = true
    else {
      val batch = runs(r).batch
      val rows = batch.numRows()
      val k = batch.column(key.ordinal)
      keys(r) = if (key.wide) k.getLongs(0, rows) else k.getInts(0, rows).map(_.toLong)
      batch.column(KeyValue.SequenceOrdinal) match {
        case c: ConstantColumnVector => sequences(r) = null; sequence(r) = c.getLong(0)
        case c => sequences(r) = c.getLongs(0, rows)
      }
      kinds(r) = batch.column(KeyValue.KindOrdinal).getBytes(0, rows)
      position(r) = 0
      size(r) = rows
    }

  private def sequenceAt(r: Int): Long = if (sequences(r) == null) sequence(r) else sequences(r)(position(r))

  private def retraction(r: Int, row: Int): Boolean = KeyValue.retracts(kinds(r)(row))

  // Whether the result at (r, row) is left out: a retraction, unless kept (and then not ignored).
  private def dropped(r: Int, row: Int): Boolean = (!keepRetractions || ignoreDelete) && retraction(r, row)

  // The runs whose heads hold the smallest key, when more than one does (a pass of `fill` finds them).
  private val tied = new Array[Int](n)
  private var tiedCount = 0

  override def fill(selection: Selection): Boolean = {
    if (selection.size == 0) java.util.Arrays.fill(holding, false)
    while (selection.size < selection.capacity) {
      // One pass over the runs: every run not at its end shows a head (a run held by the selection
      // cannot move on to its next batch); the smallest head key, the runs holding it, and the next
      // larger head key of the other runs.
      var first = -1
      var smallest = 0L
      var next = Long.MaxValue
      tiedCount = 0
      var r = 0
      while (r < n) {
        if (!ended(r) && position(r) >= size(r)) { if (holding(r)) return true else load(r) }
        if (!ended(r)) {
          val k = keys(r)(position(r))
          if (first < 0 || k < smallest) {
            if (first >= 0) next = smallest
            first = r; smallest = k; tiedCount = 0
          } else if (k == smallest) {
            if (tiedCount == 0) { tied(0) = first; tiedCount = 1 }
            tied(tiedCount) = r; tiedCount += 1
          } else if (k < next) next = k
        }
        r += 1
      }
      if (first < 0) return false
      if (tiedCount == 0) takeStretch(first, next, selection) else takeNewest(selection)
    }
    true
  }

  /**
   * The head of run `r`, the smallest key, and its rows after it below `bound`, the next key of any
   * other run: each the only version of its key.
   */
  private def takeStretch(r: Int, bound: Long, selection: Selection): Unit = {
    val k = keys(r)
    var p = position(r)
    val end = size(r)
    while ({
      if (!dropped(r, p)) { selection.add(r, p); holding(r) = true }
      p += 1
      p < end && k(p) < bound && selection.size < selection.capacity
    }) ()
    position(r) = p
  }

  /** The newest version of the key the `tied` runs' heads hold, and each of them moved past it. */
  private def takeNewest(selection: Selection): Unit = {
    var newest = -1
    var newestRow = -1
    var newestSequence = Long.MinValue
    var t = 0
    while (t < tiedCount) {
      val r = tied(t)
      val s = sequenceAt(r)
      if (!(ignoreDelete && retraction(r, position(r))) && (newest < 0 || s > newestSequence)) {
        newest = r; newestRow = position(r); newestSequence = s
      }
      position(r) += 1
      t += 1
    }
    if (newest >= 0 && !dropped(newest, newestRow)) { selection.add(newest, newestRow); holding(newest) = true }
  }
}

object KeyColumnMerge {
  /**
   * The key a [[KeyColumnMerge]] merges runs of `schema` on, if it gives what `engine` would: a
   * deduplicated key of one integral column (at `keyOrdinals`) whose versions are ordered by
   * sequence number alone, in a table that does not look keys up.
   */
  def keyOf(schema: StructType, keyOrdinals: Seq[Int], engine: MergeEngineSpec): Option[IntegralKey] =
    IntegralKey.of(schema, keyOrdinals).filter(_ =>
      engine.engine == "deduplicate" && engine.sequenceFields.isEmpty && !engine.lookupMerge)
}
