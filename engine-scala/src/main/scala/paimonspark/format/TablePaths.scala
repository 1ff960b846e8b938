package paimonspark.format

import java.util.UUID

import org.apache.hadoop.fs.Path

/**
 * Every on-disk name of a Paimon table, relative to its root directory. A branch other than `main`
 * keeps its own schemas, snapshots, tags and consumers under `branch/branch-<name>/`, and shares the
 * table root's manifests, index files and data files with every other branch.
 */
final class TablePaths(val root: Path, val branch: String = TablePaths.MainBranch) extends Serializable {
  import TablePaths._

  /** Where this branch's own metadata lives: the table root for `main`. */
  def metadataRoot: Path = if (branch == MainBranch) root else branchRoot(branch)

  def forBranch(name: String): TablePaths = new TablePaths(root, name)

  def schemaDir: Path = new Path(metadataRoot, "schema")
  def schemaFile(id: Long): Path = new Path(schemaDir, s"$SchemaPrefix$id")

  def snapshotDir: Path = new Path(metadataRoot, "snapshot")
  def snapshotFile(id: Long): Path = new Path(snapshotDir, s"$SnapshotPrefix$id")

  def tagDir: Path = new Path(metadataRoot, "tag")
  def tagFile(name: String): Path = new Path(tagDir, s"$TagPrefix$name")

  def consumerDir: Path = new Path(metadataRoot, "consumer")
  /** Long-lived changelogs (`changelog-N`, snapshot JSON): changes kept after their snapshot expired. */
  def changelogDir: Path = new Path(metadataRoot, "changelog")

  def branchDir: Path = new Path(root, "branch")
  def branchRoot(name: String): Path = new Path(branchDir, s"$BranchPrefix$name")

  def manifestDir: Path = new Path(root, "manifest")
  def manifestFile(name: String): Path = new Path(manifestDir, name)

  def indexDir: Path = new Path(root, "index")
  def indexFile(name: String): Path = new Path(indexDir, name)

  def statisticsDir: Path = new Path(root, "statistics")

  /** `<root>/<partition path>/bucket-<n>` (`bucket-postpone` for -2); the partition path is empty for unpartitioned tables. */
  def bucketDir(partitionPath: String, bucket: Int): Path =
    new Path(if (partitionPath.isEmpty) root else new Path(root, partitionPath),
      if (bucket == TablePaths.PostponeBucket) "bucket-postpone" else s"bucket-$bucket")

  def dataFile(partitionPath: String, bucket: Int, fileName: String): Path =
    new Path(bucketDir(partitionPath, bucket), fileName)
}

object TablePaths {
  /** The bucket of rows a postpone-bucket table (`bucket` = -2) has not yet assigned to a bucket. */
  val PostponeBucket = -2
  val SchemaPrefix = "schema-"
  val SnapshotPrefix = "snapshot-"
  val ChangelogPrefix = "changelog-"
  val LatestHint = "LATEST"
  val EarliestHint = "EARLIEST"
  val TagPrefix = "tag-"
  val BranchPrefix = "branch-"
  val ConsumerPrefix = "consumer-"
  val MainBranch = "main"
  val ManifestPrefix = "manifest-"
  val ManifestListPrefix = "manifest-list-"
  val IndexManifestPrefix = "index-manifest-"
  val IndexFilePrefix = "index-"
  /**
   * A cross-partition write's key locations, one file per assigner (`<prefix><uuid>-<assigner>`) in
   * `index/`, which no manifest names: the write deletes them, orphan cleanup what a killed one left.
   */
  val KeyLocationsPrefix = "cross-partition-keys-"
  val DataFilePrefix = "data-"
  val DatabaseSuffix = ".db"

  /** The id in a name such as `snapshot-12`, or None for any other name (temp files, hints). */
  def idOf(fileName: String, prefix: String): Option[Long] =
    if (fileName.startsWith(prefix)) fileName.substring(prefix.length).toLongOption else None
}

/**
 * Names for new files of one writer: `<prefix><uuid>-<n>`, with a counter per writer, as Paimon's
 * path factories produce them. Names only need to be unique; readers parse nothing but the extension.
 */
final class FileNamer(prefix: String, suffix: String) extends Serializable {
  private val uuid = UUID.randomUUID().toString
  private var counter = 0

  def next(): String = {
    val name = s"$prefix$uuid-$counter$suffix"
    counter += 1
    name
  }
}
