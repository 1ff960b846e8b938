package paimonspark.table

import paimonspark.UnsupportedFeatureException
import paimonspark.format.metadata.{Snapshot, TableSchema}

/**
 * What a table's catalog adds to the table's own commits, as Paimon's `CatalogEnvironment` does: a
 * lock held while a snapshot or schema is published, and word of what was published. A filesystem
 * catalog adds nothing; a metastore catalog takes the metastore's table lock, keeps its copy of the
 * schema and registers partitions; a REST catalog keeps the snapshots and schemas itself
 * ([[SnapshotCatalog]]). Tables carry their hooks to executors, which never commit, so
 * implementations open their connections lazily, on the driver.
 */
trait CatalogHooks extends Serializable {
  /** Runs `publish` holding the catalog's lock on the table, when the catalog has one. */
  def locked[T](publish: => T): T

  /**
   * After `schema` was published as the table's newest schema on its main branch. Throwing undoes
   * it: the caller deletes the schema file again, so that the catalog and the files agree.
   */
  def schemaChanged(table: FileStoreTable, schema: TableSchema): Unit

  /**
   * After `snapshot` was published: `added` are the partitions (serialized) that received files,
   * `removed` those that lost some. A failure here fails the statement, the snapshot stays.
   */
  def committed(table: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit

  /**
   * Runs a `partition.mark-done-action` that lives in the catalog (`done-partition`, `mark-event`) on
   * partitions given by their values in partition order; refuses before doing any if it cannot.
   */
  def markDone(table: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit

  /** The catalog's own record of the table's snapshots and branches, when it keeps one (REST). */
  def snapshotCatalog: Option[SnapshotCatalog] = None

  /** The hooks of the table's branch `name`: the same unless the catalog keeps each branch's snapshots. */
  def forBranch(name: String): CatalogHooks = this

  /** Where the table's Iceberg metadata is registered with `metadata.iceberg.storage` = `hive-catalog`, if it can be. */
  def icebergRegistry: Option[IcebergRegistry] = None
}

/**
 * A metastore that Iceberg readers find a table's Iceberg metadata in (Paimon's `IcebergMetadataCommitter`):
 * after each version of the metadata, its Iceberg table points at the new `v<N>.metadata.json`.
 */
trait IcebergRegistry extends Serializable {
  /** Refuses, naming the option, a registration that cannot work; called before a write does anything. */
  def check(table: FileStoreTable): Unit

  /** Points the Iceberg table at `metadata`, the version after `base` (None when it started afresh), creating it first if needed. */
  def register(table: FileStoreTable, metadata: org.apache.hadoop.fs.Path, base: Option[org.apache.hadoop.fs.Path]): Unit
}

object CatalogHooks {
  /**
   * Commits that rely on the atomic create of their file alone: a table read by path, and (with a name for
   * its Iceberg metadata's registry) a filesystem catalog's.
   */
  class NoHooks extends CatalogHooks {
    override def locked[T](publish: => T): T = publish
    override def schemaChanged(table: FileStoreTable, schema: TableSchema): Unit = ()
    override def committed(table: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit = ()
    override def markDone(table: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit =
      throw new UnsupportedFeatureException(s"table ${table.name}: partition.mark-done-action '$action': Cannot mark " +
        "done partition for table without metastore.", "partition.mark-done-action")
  }

  object NoHooks extends NoHooks
}
