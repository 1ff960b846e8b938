package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * A k-way merge of sorted runs that hands each key's versions, oldest first, to a merge engine and
 * yields the engine's results. Versions are ordered as Paimon's sort-merge reader orders them: by
 * `sequence.field` if set, then `_SEQUENCE_NUMBER`. Batch reads drop merged retractions; writers
 * keep them, so they still hide older files.
 *
 * Rows are not copied. A run's row is only required to stay valid until that run is advanced, and
 * a run is advanced only when the caller asks for the next key, after it has used the last result.
 * That holds because a sorted run has one row per key (Paimon's invariant for data files): the
 * versions of a key come from distinct runs. A writer's sorted buffer is the exception: one run
 * holding several versions per key (`uniqueKeys` false), whose rows must stay valid (copies),
 * since finding a key's end means reading past it.
 *
 * A caller that keeps references into runs' buffers past a result (a columnar reader gathering
 * results into a batch) passes `mayAdvance`: a run it refuses is not advanced, and `hasNext` is
 * false with `blocked` set until the caller has released its references and asks again.
 *
 * With `runLevels` (the level of each run), a key is merged as Paimon merges it in tables that look
 * keys up (its `LookupMergeFunction`): its level-0 versions with only the version of the lowest level
 * above 0. Every compaction of such a table merged the older levels into that version already, so
 * the deeper versions are not counted again.
 */
final class SortedRunMerge(
    runs: Seq[Iterator[InternalRow]],
    keyOrdering: Ordering[InternalRow],
    engine: MergeEngine,
    versionOrdering: Ordering[InternalRow] = KeyValue.bySequence,
    dropRetractions: Boolean = true,
    uniqueKeys: Boolean = true,
    mayAdvance: Int => Boolean = _ => true,
    integralKey: Option[IntegralKey] = None,
    runLevels: Option[Seq[Int]] = None) extends Iterator[InternalRow] {

  require(uniqueKeys || runs.size == 1, "only a single run may hold several versions of a key")

  private val sources = runs.toArray
  private val heads = new Array[InternalRow](sources.length)
  // A binary min-heap of run indices by (key, version) of their heads.
  private val heap = new Array[Int](sources.length)
  private var heapSize = 0
  // Runs whose heads went into the last key's merge: advanced when the next key is asked for.
  private val used = new Array[Int](sources.length)
  private var usedCount = 0
  private var pending: InternalRow = _
  private val versionsInOneRun = !uniqueKeys
  private var refused = false
  private var pendingRun = -1

  /** Whether the last `hasNext` was false because `mayAdvance` refused a run, not at the end. */
  def blocked: Boolean = refused

  private val levels = runLevels.map(_.toArray).orNull
  // The run of the lowest level above 0 among the last key's versions (with `runLevels`), else -1.
  private var topRun = -1

  private def merged(run: Int): Boolean = levels == null || levels(run) <= 0 || run == topRun

  /**
   * The last result's versions that were merged, with the runs they came from; valid until the
   * next key is asked for.
   */
  def lastVersions: Seq[(Int, InternalRow)] = (0 until usedCount).map(used).filter(merged).map(run => (run, heads(run)))

  /**
   * The run whose head the last result is (engines that pick one of the versions, such as
   * deduplicate), -1 when the engine built a new row.
   */
  def resultRun: Int = pendingRun

  // A key of one integral column, versions ordered by sequence number: both read once per row into
  // arrays, so the heap compares numbers instead of calling the orderings on two rows.
  private val numeric = integralKey.filter(_ => uniqueKeys && (versionOrdering eq KeyValue.bySequence)).orNull
  private val keys = new Array[Long](sources.length)
  private val sequences = new Array[Long](sources.length)

  private def precedes(a: Int, b: Int): Boolean =
    if (numeric != null) keys(a) < keys(b) || keys(a) == keys(b) && sequences(a) < sequences(b)
    else {
      val byKey = keyOrdering.compare(heads(a), heads(b))
      (if (byKey != 0) byKey else versionOrdering.compare(heads(a), heads(b))) < 0
    }

  private def sameKey(a: Int, b: Int): Boolean =
    if (numeric != null) keys(a) == keys(b) else keyOrdering.compare(heads(a), heads(b)) == 0

  private def push(run: Int): Unit = {
    var i = heapSize
    heapSize += 1
    while (i > 0 && precedes(run, heap((i - 1) / 2))) {
      heap(i) = heap((i - 1) / 2)
      i = (i - 1) / 2
    }
    heap(i) = run
  }

  private def pop(): Int = {
    val top = heap(0)
    heapSize -= 1
    if (heapSize > 0) {
      val last = heap(heapSize)
      var i = 0
      var done = false
      while (!done) {
        val l = 2 * i + 1
        if (l >= heapSize) done = true
        else {
          val c = if (l + 1 < heapSize && precedes(heap(l + 1), heap(l))) l + 1 else l
          if (precedes(heap(c), last)) { heap(i) = heap(c); i = c } else done = true
        }
      }
      heap(i) = last
    }
    top
  }

  // A run advanced alone whose new head precedes every head in the heap: the next key's first
  // version without a push and a pop (in a merge of one large run with sparse updates, most keys).
  private var held = -1

  private def advance(run: Int, mayHold: Boolean): Unit = if (sources(run).hasNext) {
    heads(run) = sources(run).next()
    if (numeric != null) {
      keys(run) = numeric.of(heads(run))
      sequences(run) = KeyValue.sequence(heads(run))
    }
    if (mayHold && (heapSize == 0 || precedes(run, heap(0)))) held = run
    else if (!versionsInOneRun) push(run)
  } else heads(run) = null

  sources.indices.foreach(advance(_, mayHold = false))

  private def emit(result: InternalRow): Unit = {
    pending = result
    if (dropRetractions && pending != null && KeyValue.isRetract(pending)) pending = null
  }

  // The one run's head is read past each key's last version: its rows must be copies.
  private def mergeSingleRun(): Unit = while (pending == null && heads(0) != null) {
    engine.reset()
    val first = heads(0)
    engine.add(first)
    advance(0, mayHold = false)
    while (heads(0) != null && keyOrdering.compare(heads(0), first) == 0) {
      engine.add(heads(0))
      advance(0, mayHold = false)
    }
    emit(engine.result())
  }

  private def mergeRuns(): Unit = while (pending == null && !refused && (usedCount > 0 || held >= 0 || heapSize > 0)) {
    var u = 0
    while (u < usedCount && mayAdvance(used(u))) u += 1
    if (u < usedCount) refused = true
    else {
      u = 0
      while (u < usedCount) { advance(used(u), mayHold = usedCount == 1); u += 1 }
      usedCount = 0
      if (held >= 0 || heapSize > 0) mergeNextKey()
    }
  }

  /** Merges the versions of the smallest key among the heads; they are the runs then `used`. */
  private def mergeNextKey(): Unit = {
    val first = if (held >= 0) held else pop()
    held = -1
    used(0) = first
    usedCount = 1
    while (heapSize > 0 && sameKey(heap(0), first)) {
      used(usedCount) = pop()
      usedCount += 1
    }
    if (levels != null) topRun = lowestAboveZero()
    engine.reset()
    var v = 0
    while (v < usedCount) { if (merged(used(v))) engine.add(heads(used(v))); v += 1 }
    emit(engine.result())
    pendingRun = -1
    var u = 0
    while (u < usedCount) { if (heads(used(u)) eq pending) pendingRun = used(u); u += 1 }
  }

  private def lowestAboveZero(): Int = {
    var top = -1
    var u = 0
    while (u < usedCount) {
      val run = used(u)
      if (levels(run) > 0 && (top < 0 || levels(run) < levels(top))) top = run
      u += 1
    }
    top
  }

  override def hasNext: Boolean = {
    refused = false
    if (pending == null) { if (versionsInOneRun) mergeSingleRun() else mergeRuns() }
    pending != null
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = pending
    pending = null
    row
  }
}

/** A key made of one integral column (at `ordinal` of the merged rows), whose order is its number's. */
final case class IntegralKey(ordinal: Int, wide: Boolean) {
  def of(row: InternalRow): Long = if (wide) row.getLong(ordinal) else row.getInt(ordinal).toLong
}

object IntegralKey {
  def of(schema: StructType, keyOrdinals: Seq[Int]): Option[IntegralKey] = keyOrdinals match {
    case Seq(i) => schema(i).dataType match {
      case LongType | TimestampType | TimestampNTZType => Some(IntegralKey(i, wide = true))
      case IntegerType | DateType => Some(IntegralKey(i, wide = false))
      case _ => None
    }
    case _ => None
  }
}
