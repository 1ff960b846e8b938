package paimonspark.table

import paimonspark.format.metadata.Snapshot

/**
 * A catalog that keeps a table's snapshots and branches itself (Paimon's REST catalog,
 * `supportsVersionManagement`): its answer is the branch's latest snapshot, whatever the `snapshot/`
 * directory holds, and a commit is a request to it, which writes the snapshot file. Branches are created,
 * dropped, renamed and fast-forwarded by it too, so that its record follows them. A table whose hooks have
 * one never publishes a snapshot, schema or branch file of its own. Each instance speaks for one branch.
 */
trait SnapshotCatalog extends Serializable {
  /** The table's latest snapshot, None before its first commit. */
  def latest(): Option[Snapshot]

  /**
   * Commits `snapshot` with what it changed in each partition; false when another writer committed its id
   * first (the commit is retried as a conflict). Throws when the outcome is unknown.
   */
  def commit(snapshot: Snapshot, statistics: Seq[PartitionStatistics]): Boolean

  /**
   * Rolls the table back to `target`, by its `tag` when one named it (a tagged snapshot that expired comes
   * back from its tag), if its latest snapshot is still `from`; the catalog removes what came after.
   */
  def rollback(target: Snapshot, tag: Option[String], from: Long): Unit

  /** The branch `name` of the same table in the catalog (`main`: the table itself). */
  def branch(name: String): SnapshotCatalog

  /** Creates branch `name` of the table, empty or from `fromTag` of main, once checked here. */
  def createBranch(name: String, fromTag: Option[String]): Unit

  def dropBranch(name: String): Unit

  def renameBranch(from: String, to: String): Unit

  /** Main takes the history of branch `name`, as [[paimonspark.table.history.FastForward]] describes. */
  def fastForward(name: String): Unit
}

/**
 * What one commit changed in one partition (Paimon's `PartitionStatistics`): `spec` its values by key,
 * as its directory names them, the rest the sums over the files it added less those it deleted, and the
 * newest creation time of the files it touched.
 */
final case class PartitionStatistics(spec: Seq[(String, String)], recordCount: Long, fileSizeInBytes: Long,
    fileCount: Long, lastFileCreationTime: Long, totalBuckets: Int)
