package paimonspark.table.history

import paimonspark.{BranchNotFoundException, InvalidOptionException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.Snapshot
import paimonspark.table.FileStoreTable

/**
 * `fast_forward`: main takes a branch's history, as Paimon does it. From the branch's earliest
 * snapshot E (committed under schema S) on, main's snapshots and tags, and its schemas from S on,
 * are replaced by the branch's; main keeps its older history. Main's removed snapshots are
 * deleted newest first before the branch's are copied in, oldest first, so main's latest snapshot
 * is whole at every moment. Files only main's removed snapshots used become orphans for orphan
 * cleanup, as in Paimon. A catalog that keeps the table's snapshots (REST) does the same itself, once
 * checked here.
 */
object FastForward {
  def run(table: FileStoreTable, branchName: String): Unit = {
    if (branchName == TablePaths.MainBranch) {
      throw new InvalidOptionException("branch", "fast_forward: the main branch cannot be fast-forwarded to itself")
    }
    val main = table.branch(TablePaths.MainBranch)
    val branch = main.branch(branchName)
    val branchSnapshots = branch.snapshotManager
    val first = branchSnapshots.earliestId().flatMap(branchSnapshots.readIfExists).getOrElse(
      throw new BranchNotFoundException(branch = branchName, message = s"fast_forward: branch '$branchName' of ${main.location} has no snapshot yet"))
    main.hooks.snapshotCatalog.fold(forwardFiles(main, branch, first))(_.fastForward(branchName))
  }

  private def forwardFiles(main: FileStoreTable, branch: FileStoreTable, first: Snapshot): Unit = {
    val branchSnapshots = branch.snapshotManager
    val io = main.io
    val (mainPaths, branchPaths) = (main.paths, branch.paths)
    val mainSnapshots = main.snapshotManager

    mainSnapshots.listIds().filter(_ >= first.id).reverse.foreach(mainSnapshots.delete)
    main.tagManager.list().filter(_._2.snapshot.id >= first.id).foreach { case (n, _) => main.tagManager.delete(n) }
    main.schemaManager.listIds().filter(_ >= first.schemaId).reverse
      .foreach(id => io.delete(mainPaths.schemaFile(id), recursive = false))

    def copy(from: org.apache.hadoop.fs.Path, to: org.apache.hadoop.fs.Path): Unit = {
      io.publish(to, io.readBytes(from))
    }
    branch.schemaManager.listIds().filter(_ >= first.schemaId)
      .foreach(id => copy(branchPaths.schemaFile(id), mainPaths.schemaFile(id)))
    branchSnapshots.listIds().foreach(id => copy(branchPaths.snapshotFile(id), mainPaths.snapshotFile(id)))
    branch.tagManager.list().foreach { case (n, _) => copy(branchPaths.tagFile(n), mainPaths.tagFile(n)) }
    branchSnapshots.latestId().foreach(mainSnapshots.writeLatestHint)
  }
}
