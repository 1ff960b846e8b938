package paimonspark.table

import paimonspark.format.{Snapshot, TablePaths}

/**
 * The snapshots whose files a branch's expiry, tag deletion and rollback must keep besides its own
 * retained snapshots: its tags, and every snapshot and tag of every other branch. Branches share
 * the table's data and manifest files; after a `fast_forward`, main and the branch even share
 * snapshots past the branch's earliest one, whose files the branch added, so the earliest snapshot
 * of another branch is not enough.
 */
object HistoryAnchors {
  def of(table: FileStoreTable): Seq[Snapshot] = {
    val own = table.tagManager.list().map(_._2.snapshot)
    val others = (TablePaths.MainBranch +: table.branchManager.list()).filterNot(_ == table.paths.branch).flatMap { b =>
      val paths = table.paths.forBranch(b)
      val snapshots = new SnapshotManager(table.io, paths)
      snapshots.listIds().flatMap(snapshots.readIfExists) ++ new TagManager(table.io, paths).list().map(_._2.snapshot)
    }
    own ++ others
  }
}
