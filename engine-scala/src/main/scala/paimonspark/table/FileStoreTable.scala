package paimonspark.table

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.TableNotFoundException
import paimonspark.format.{BinaryRow, DataFileMeta, PartitionPath, TablePaths, TableSchema}
import paimonspark.fs.FileIO
import paimonspark.lsm.DataFileSettings

/**
 * One table as of one schema version: where it lives and how its files are laid out. Cheap to
 * create and serializable, so executors get the same view the driver planned with.
 */
final class FileStoreTable(val io: FileIO, val paths: TablePaths, val schema: TableSchema) extends Serializable {

  def location: Path = paths.root
  def options: TableOptions = TableOptions(schema.options)
  def schemaManager: SchemaManager = new SchemaManager(io, paths)
  def snapshotManager: SnapshotManager = new SnapshotManager(io, paths)
  def newManifestStore(): ManifestStore = new ManifestStore(io, paths, schema)
  def newScan(): ScanPlanner = new ScanPlanner(this)
  def newCommit(commitUser: String): TableCommit = new TableCommit(this, commitUser)

  def isPrimaryKeyTable: Boolean = schema.primaryKeys.nonEmpty

  /** What this table's data files are written with, as its options say. */
  def dataFileSettings: DataFileSettings = {
    val o = options
    DataFileSettings(io, o.fileCompression, o.zstdLevel, o.targetFileSize(isPrimaryKeyTable), o.statsMode, schema.id, o.dataFilePrefix)
  }

  /** The relative directory of a partition given its serialized BinaryRow. */
  def partitionPath(partition: Array[Byte]): String = partitionPathOf(
    BinaryRow.deserialize(schema.partitionRowType.map(_.withNullable(true)), partition))

  def partitionPathOf(partition: InternalRow): String =
    PartitionPath.of(schema.partitionKeys, schema.partitionRowType, partition, options.partitionDefaultName)

  def dataFilePath(partition: Array[Byte], bucket: Int, file: DataFileMeta): Path =
    file.externalPath.map(new Path(_)).getOrElse(paths.dataFile(partitionPath(partition), bucket, file.fileName))
}

object FileStoreTable {
  def load(io: FileIO, location: Path): FileStoreTable = {
    val paths = new TablePaths(location)
    val schema = new SchemaManager(io, paths).latest().getOrElse(
      throw new TableNotFoundException(s"$location is not a Paimon table: it has no schema/schema-N file"))
    new FileStoreTable(io, paths, schema)
  }

  def exists(io: FileIO, location: Path): Boolean =
    new SchemaManager(io, new TablePaths(location)).listIds().nonEmpty
}
