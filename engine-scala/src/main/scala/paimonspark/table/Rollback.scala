package paimonspark.table

import paimonspark.format.{FileKind, Snapshot}

/**
 * Rolls a branch back to a snapshot: later snapshots and tags are removed, then the files only they
 * referenced. Snapshot files go newest first, so at every moment the table's latest snapshot is a
 * whole one and readers see either the old history or a shorter one; files are deleted only once
 * nothing names them (a process killed before that leaves orphans for orphan cleanup). New commits
 * continue from the kept snapshot's id.
 */
object Rollback {
  /** Returns the latest snapshot id before the rollback. */
  def toSnapshot(table: FileStoreTable, target: Snapshot): Long = {
    val snapshots = table.snapshotManager
    val latest = snapshots.latestId().getOrElse(target.id)
    // A tagged snapshot that expired comes back from its tag.
    val restored = !snapshots.snapshotExists(target.id)
    if (restored) snapshots.restore(target)
    val later = snapshots.listIds().filter(_ > target.id).flatMap(snapshots.readIfExists)
    val laterTags = table.tagManager.list().filter(_._2.snapshot.id > target.id)
    val files = new SnapshotFiles(table)
    // Every file live in a later snapshot is live in the first of them or added by a commit after it.
    val added = (later.headOption.toSeq.flatMap(files.data) ++
      later.drop(1).flatMap(s => files.delta(s).filter(_.kind == FileKind.Add)).flatMap(files.filesOf) ++
      laterTags.flatMap(t => files.data(t._2.snapshot))).distinct
    val removedMeta = (later ++ laterTags.map(_._2.snapshot)).flatMap(files.metadata).distinct

    later.reverse.foreach(s => snapshots.delete(s.id))
    laterTags.foreach { case (name, _) => table.tagManager.delete(name) }
    snapshots.writeLatestHint(target.id)
    if (restored) snapshots.writeEarliestHint(target.id)

    val kept = target +: HistoryAnchors.of(table)
    val keptData = kept.flatMap(files.data).toSet
    val keptMeta = kept.flatMap(files.metadata).toSet
    added.filterNot(keptData).foreach(table.io.delete(_, recursive = false))
    removedMeta.filterNot(keptMeta).foreach(table.io.delete(_, recursive = false))
    latest
  }
}
