package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * The changelog rule of the `lookup` and `full-compaction` producers, applied to each key a
 * compaction merges: when some of its versions are new (at a level below `settledLevel`), the key's
 * state before them (its settled versions, at `settledLevel` or deeper: those of the compaction and
 * those `lookups` find in the levels below it) is compared with its state after them (all
 * versions), and the difference is written as Paimon writes it: +I for a new key, -U/+U with the
 * real before image for a changed one, -D for a key that existed and is deleted, nothing for the
 * deletion of a key that never existed. First-row tables only ever gain keys. With
 * `rowDeduplicate`, a -U/+U pair of equal rows (but `ignoredColumns`) is left out.
 *
 * `lookup` settles versions at level 1 (level-0 files are new); `full-compaction` at the top level
 * (whatever the last full compaction left is the state before). In a table that looks keys up, the
 * state before is one version, the lowest above level 0 ([[LookupResolution]]): see `onLookup`.
 */
final class LookupChangelog(spec: MergeEngineSpec, rowSchema: StructType, fixedOrdinals: Seq[Int],
    lookups: Seq[LevelLookup], settledLevel: Int, rowDeduplicate: Boolean, ignoredColumns: Set[Int],
    write: InternalRow => Unit) {

  private val before = spec.create(rowSchema, fixedOrdinals)
  private val after = spec.create(rowSchema, fixedOrdinals)
  private val versions = spec.versionOrdering(rowSchema)
  private val compared = (2 until rowSchema.length).filterNot(ignoredColumns)

  /** One key's versions in the compaction, with the level each came from. */
  def onKey(inputs: Seq[(Int, InternalRow)]): Unit = if (inputs.exists(_._1 < settledLevel)) {
    val key = inputs.head._2
    val found = lookups.flatMap(_.find(key))
    val old = merge(before, (found ++ inputs.collect { case (level, row) if level >= settledLevel => row }).sorted(versions))
    changed(old, merge(after, (found ++ inputs.map(_._2)).sorted(versions)))
  }

  /**
   * One key of a table that looks keys up: its merged versions with their levels, its state before
   * (the lowest version above level 0, if any) and the version the compaction writes for it.
   */
  def onLookup(inputs: Seq[(Int, InternalRow)], old: Option[InternalRow], now: InternalRow): Unit =
    if (inputs.exists(_._1 < settledLevel)) changed(old.orNull, now)

  private def changed(old: InternalRow, now: InternalRow): Unit = {
    val existed = old != null && !KeyValue.isRetract(old)
    val exists = now != null && !KeyValue.isRetract(now)
    if (!existed) { if (exists) emit(now, KeyValue.Insert) }
    else if (spec.engine == "first-row") ()
    else if (!exists) emit(old, KeyValue.Delete)
    else if (!(rowDeduplicate && same(old, now))) {
      emit(old, KeyValue.UpdateBefore)
      emit(now, KeyValue.UpdateAfter)
    }
  }

  private def merge(engine: MergeEngine, rows: Seq[InternalRow]): InternalRow =
    if (rows.isEmpty) null
    else {
      engine.reset()
      rows.foreach(engine.add)
      engine.result()
    }

  private def same(a: InternalRow, b: InternalRow): Boolean =
    compared.forall(i => a.get(i, rowSchema(i).dataType) == b.get(i, rowSchema(i).dataType))

  private def emit(row: InternalRow, kind: Byte): Unit = {
    val out = row.copy()
    out.setByte(KeyValue.KindOrdinal, kind)
    write(out)
  }
}
