package paimonspark.table

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.TableNotFoundException
import paimonspark.format.{LevelFormats, PartitionPath, TablePaths}
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, DeletionFile, IndexFileEntry, Snapshot, TableSchema}
import paimonspark.fs.FileIO
import paimonspark.lsm.DataFileSettings

/**
 * One branch of a table as of one schema version: where it lives and how its files are laid out.
 * A table `pinned` to a snapshot (time travel) reads that snapshot, with the schema it was written
 * under, and takes no writes. Cheap to create and serializable, so executors get the same view the
 * driver planned with.
 */
final class FileStoreTable(fileIO: FileIO, val paths: TablePaths, val schema: TableSchema,
    val pinned: Option[Snapshot] = None, val hooks: CatalogHooks = CatalogHooks.NoHooks) extends Serializable {

  /** The table's file I/O; it publishes on object stores without conditional writes only if the table allows it. */
  val io: FileIO = FileStoreTable.fileIOFor(fileIO, schema)

  def location: Path = paths.root
  /** The table's location, with the branch when it is not `main`: how errors name it. */
  def name: String = if (paths.branch == TablePaths.MainBranch) location.toString else s"$location (branch ${paths.branch})"
  def options: TableOptions = TableOptions(schema.options)
  def schemaManager: SchemaManager = new SchemaManager(io, paths)
  def snapshotManager: SnapshotManager = new SnapshotManager(io, paths, hooks.snapshotCatalog)
  def tagManager: TagManager = new TagManager(io, paths)
  def branchManager: BranchManager = new BranchManager(io, paths, hooks.snapshotCatalog)
  def consumerManager: ConsumerManager = new ConsumerManager(io, paths)

  /** Long-lived changelogs: the changes of snapshots that expired before their changelog did. */
  def changelogManager: SnapshotManager = SnapshotManager.changelogs(io, paths)

  /** What commit `id` changed: its snapshot, or its long-lived changelog once the snapshot expired. */
  def commitChanges(id: Long): Option[Snapshot] =
    snapshotManager.readIfExists(id).orElse(changelogManager.readIfExists(id))

  /** The earliest commit whose changes are still readable, from a snapshot or a long-lived changelog. */
  def earliestChangesId: Option[Long] = (changelogManager.earliestId() ++ snapshotManager.earliestId()).minOption

  /** The snapshot reads see: the pinned one, or the latest. */
  def currentSnapshot(): Option[Snapshot] = pinned.orElse(snapshotManager.latest())

  /** This table as of `snapshot`, read with the schema that snapshot was committed under. */
  def pinnedTo(snapshot: Snapshot): FileStoreTable =
    new FileStoreTable(io, paths, schemaWithId(snapshot.schemaId), Some(snapshot), hooks)

  /** This table at its latest schema, reading `snapshot`: a rewrite of what one snapshot holds (sort compaction). */
  def readingAt(snapshot: Snapshot): FileStoreTable = new FileStoreTable(io, paths, schema, Some(snapshot), hooks)

  /** The table's schema version `id`: the one this table holds, or read from its file. */
  def schemaWithId(id: Long): TableSchema = if (id == schema.id) schema else schemaManager.read(id)

  /** Every schema version the table has had, oldest first. */
  def allSchemas: Seq[TableSchema] = schemaManager.listIds().map(schemaWithId)

  /** This branch at its latest schema and snapshot, undoing a pin. */
  def latest: FileStoreTable = if (pinned.isEmpty) this else new FileStoreTable(io, paths, schemaManager.latestOrFail(), hooks = hooks)

  /** Another branch of this table, at its latest schema. */
  def branch(name: String): FileStoreTable = {
    if (name == paths.branch) this
    else {
      if (name != TablePaths.MainBranch && !branchManager.exists(name)) throw branchManager.notFound(name)
      val branchPaths = paths.forBranch(name)
      new FileStoreTable(io, branchPaths, new SchemaManager(io, branchPaths).latestOrFail(), hooks = hooks.forBranch(name))
    }
  }

  /**
   * This table as one read or one procedure sees it: `options` (table options given to it, such as
   * `source.split.target-size`) in place of the table's own values. Never written: one use's view.
   */
  def withDynamicOptions(options: Map[String, String]): FileStoreTable =
    if (options.isEmpty) this
    else new FileStoreTable(io, paths, schema.copy(options = schema.options ++ options), pinned, hooks)

  def newManifestStore(): ManifestStore = new ManifestStore(io, paths, schema)

  def isPrimaryKeyTable: Boolean = schema.primaryKeys.nonEmpty

  /** What this table's data files are written with, as its options say. */
  def dataFileSettings: DataFileSettings = {
    val o = options
    DataFileSettings(io, o.levelFormats, o.targetFileSize(isPrimaryKeyTable), o.statsMode, o.fieldStatsModes, schema.id,
      o.dataFilePrefix, s"data|$location")
  }

  /** What this table's changelog files are written with: their own prefix, format and codec. */
  def changelogFileSettings: DataFileSettings =
    dataFileSettings.copy(filePrefix = options.changelogFilePrefix, formats = LevelFormats(options.changelogWriteSpec),
      kind = s"changelog|$location")

  /** The relative directory of a partition given its serialized BinaryRow. */
  def partitionPath(partition: Array[Byte]): String = partitionPathOf(
    BinaryRow.deserialize(schema.partitionRowType.map(_.withNullable(true)), partition))

  /** A partition's values (serialized BinaryRow) as its directory spells them, unescaped, in partition order. */
  def partitionValues(partition: Array[Byte]): Seq[String] = {
    val types = schema.partitionRowType.map(_.withNullable(true))
    PartitionPath.values(types, BinaryRow.deserialize(types, partition), options.partitionDefaultName)
  }

  def partitionPathOf(partition: InternalRow): String =
    PartitionPath.of(schema.partitionKeys, schema.partitionRowType, partition, options.partitionDefaultName)

  def dataFilePath(partition: Array[Byte], bucket: Int, file: DataFileMeta): Path =
    file.externalPath.map(new Path(_)).getOrElse(paths.dataFile(partitionPath(partition), bucket, file.fileName))

  /** Where each data file of an index file's entry has its deletion vector (a `DELETION_VECTORS` file's entry). */
  def deletionFiles(index: IndexFileEntry): Seq[(String, DeletionFile)] = {
    val path = indexFilePath(index)
    index.deletionVectors.map(v => v.dataFile -> DeletionFile(path, v.offset, v.length))
  }

  /** Where an index file is: its external path, or the table's index directory. */
  def indexFilePath(index: IndexFileEntry): String = index.externalPath.getOrElse(paths.indexFile(index.fileName).toString)
}

object FileStoreTable {
  def load(io: FileIO, location: Path, hooks: CatalogHooks = CatalogHooks.NoHooks): FileStoreTable =
    loadIfExists(io, location, hooks).getOrElse(
      throw new TableNotFoundException(location.toString, s"$location is not a Paimon table: it has no schema/schema-N file"))

  /** The table at `location`, or None when there is none: one listing of its schemas answers both. */
  def loadIfExists(io: FileIO, location: Path, hooks: CatalogHooks = CatalogHooks.NoHooks): Option[FileStoreTable] = {
    val paths = new TablePaths(location)
    new SchemaManager(io, paths).latest().map(new FileStoreTable(io, paths, _, hooks = hooks))
  }

  /**
   * Creates a table at `location` by publishing its schema 0; None when another writer created it
   * first. A store that cannot publish safely is refused before anything is written.
   */
  def create(io: FileIO, location: Path, schema: TableSchema, hooks: CatalogHooks = CatalogHooks.NoHooks)
      : Option[FileStoreTable] = {
    val table = new FileStoreTable(io, new TablePaths(location), schema, hooks = hooks)
    table.io.checkPublishable(location)
    val manager = table.schemaManager
    if (hooks.locked(manager.listIds().isEmpty && manager.publish(schema))) Some(table) else None
  }

  def exists(io: FileIO, location: Path): Boolean =
    new SchemaManager(io, new TablePaths(location)).listIds().nonEmpty

  /** `io`, allowed to publish on object stores without conditional writes when `schema`'s options promise one writer. */
  def fileIOFor(io: FileIO, schema: TableSchema): FileIO =
    if (TableOptions(schema.options).objectStoreSingleWriter) io.assumingSingleWriter else io
}
