package paimonspark.table

import paimonspark.format.{Snapshot, TablePaths}

/**
 * The snapshots whose files a branch's expiry and tag deletion must keep besides its own retained
 * snapshots: its tags, and the earliest snapshot and the tags of every other branch. Branches share
 * the table's data and manifest files, and a file's life in one branch is an interval of its
 * snapshots, so a file another branch still reads is in one of these.
 */
object HistoryAnchors {
  def of(table: FileStoreTable): Seq[Snapshot] = {
    val own = table.tagManager.list().map(_._2.snapshot)
    val others = (TablePaths.MainBranch +: table.branchManager.list()).filterNot(_ == table.paths.branch).flatMap { b =>
      val paths = table.paths.forBranch(b)
      val snapshots = new SnapshotManager(table.io, paths)
      snapshots.earliestId().flatMap(snapshots.readIfExists).toSeq ++ new TagManager(table.io, paths).list().map(_._2.snapshot)
    }
    own ++ others
  }
}
