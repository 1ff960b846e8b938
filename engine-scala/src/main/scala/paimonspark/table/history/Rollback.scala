package paimonspark.table.history

import paimonspark.format.metadata.Snapshot
import paimonspark.table.FileStoreTable
import paimonspark.table.iceberg.IcebergCommit

/**
 * Rolls a branch back to a snapshot: later snapshots and tags are removed, then the files only they
 * referenced. Snapshot files go newest first, so at every moment the table's latest snapshot is a
 * whole one and readers see either the old history or a shorter one; files are deleted only once
 * nothing names them (a process killed before that leaves orphans for orphan cleanup). New commits
 * continue from the kept snapshot's id.
 */
object Rollback {
  /**
   * Returns the latest snapshot id before the rollback. `tag` is the tag that named `target`, if one did. A
   * catalog that keeps the table's snapshots is asked to roll back, and removes what came after itself.
   */
  def toSnapshot(table: FileStoreTable, target: Snapshot, tag: Option[String] = None): Long = {
    val snapshots = table.snapshotManager
    val latest = snapshots.latestId().getOrElse(target.id)
    table.hooks.snapshotCatalog match {
      case Some(catalog) => catalog.rollback(target, tag, latest)
      case None => rollBackFiles(table, target, latest)
    }
    IcebergCommit.afterRollback(table, target)
    latest
  }

  private def rollBackFiles(table: FileStoreTable, target: Snapshot, latest: Long): Unit = {
    val snapshots = table.snapshotManager
    // A tagged snapshot that expired comes back from its tag.
    val restored = !snapshots.snapshotExists(target.id)
    if (restored) snapshots.restore(target)
    val (earlier, later) = snapshots.listIds().filter(_ != target.id).flatMap(snapshots.readIfExists).partition(_.id < target.id)
    val laterTags = table.tagManager.list().filter(_._2.snapshot.id > target.id)
    val files = new SnapshotFiles(table)
    // Every snapshot is read whole rather than by the interval argument (a file live in a later
    // snapshot is in the first of them or added after it): after a fast_forward, main's history
    // joins two lineages, and a file of the branch's part may be in none of those.
    val removed = later ++ laterTags.map(_._2.snapshot)
    val added = removed.flatMap(files.data).toSet
    val removedMeta = removed.flatMap(files.metadata(_)).distinct

    later.reverse.foreach(s => snapshots.delete(s.id))
    // Long-lived changelogs after the target (it was a tag that outlived them) go too, as in Paimon;
    // the files only they named are left to orphan cleanup.
    val changelogs = table.changelogManager
    changelogs.listIds().filter(_ > target.id).reverse.foreach(changelogs.delete)
    laterTags.foreach { case (name, _) => table.tagManager.delete(name) }
    snapshots.writeLatestHint(target.id)
    if (restored) snapshots.writeEarliestHint(target.id)

    val kept = target +: (earlier ++ HistoryAnchors.of(table))
    val keptData = files.liveAmong(kept, added)
    val keptMeta = kept.flatMap(files.metadata(_)).toSet
    added.filterNot(keptData).foreach(table.io.delete(_, recursive = false))
    removedMeta.filterNot(keptMeta).foreach(table.io.delete(_, recursive = false))
  }
}
