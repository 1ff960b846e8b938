package paimonspark.format

import java.util.UUID

import org.apache.hadoop.fs.Path

/** Every on-disk name of a Paimon table, relative to its root directory. */
final class TablePaths(val root: Path) extends Serializable {
  import TablePaths._

  def schemaDir: Path = new Path(root, "schema")
  def schemaFile(id: Long): Path = new Path(schemaDir, s"$SchemaPrefix$id")

  def snapshotDir: Path = new Path(root, "snapshot")
  def snapshotFile(id: Long): Path = new Path(snapshotDir, s"$SnapshotPrefix$id")
  def latestHint: Path = new Path(snapshotDir, "LATEST")

  def manifestDir: Path = new Path(root, "manifest")
  def manifestFile(name: String): Path = new Path(manifestDir, name)

  def indexDir: Path = new Path(root, "index")
  def indexFile(name: String): Path = new Path(indexDir, name)

  /** `<root>/<partition path>/bucket-<n>`; the partition path is empty for unpartitioned tables. */
  def bucketDir(partitionPath: String, bucket: Int): Path =
    new Path(if (partitionPath.isEmpty) root else new Path(root, partitionPath), s"bucket-$bucket")

  def dataFile(partitionPath: String, bucket: Int, fileName: String): Path =
    new Path(bucketDir(partitionPath, bucket), fileName)
}

object TablePaths {
  val SchemaPrefix = "schema-"
  val SnapshotPrefix = "snapshot-"
  val ManifestPrefix = "manifest-"
  val ManifestListPrefix = "manifest-list-"
  val IndexManifestPrefix = "index-manifest-"
  val IndexFilePrefix = "index-"
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
