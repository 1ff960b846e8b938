package paimonspark.table.history

import paimonspark.format.TablePaths
import paimonspark.format.metadata.Snapshot
import paimonspark.table.{FileStoreTable, SnapshotManager, TagManager}

/**
 * The snapshots whose files a branch's expiry, tag deletion and rollback must keep besides its own
 * retained snapshots: its tags, and every retained snapshot and tag of every other branch.
 * Branches share the table's data and manifest files. Within one branch a file's life is an
 * interval of its snapshots, but that interval need not reach back to another branch's earliest
 * snapshot: main may have written a file after its earliest snapshot and before a branch forked
 * from it, and after a `fast_forward` main and the branch share snapshots whose files the branch
 * added. So for the other branches all their snapshots count.
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
