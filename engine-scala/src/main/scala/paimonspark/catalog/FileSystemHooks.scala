package paimonspark.catalog

import paimonspark.catalog.hive.IcebergHiveRegistry
import paimonspark.format.metadata.{Snapshot, TableSchema}
import paimonspark.table.{CatalogHooks, FileStoreTable, IcebergRegistry}

/**
 * What a filesystem catalog adds to the commits of its table `db.table`: nothing but the name, under which
 * `metadata.iceberg.storage` = `hive-catalog` registers the table's Iceberg metadata in the metastore its
 * `metadata.iceberg.uri` names.
 */
final class FileSystemHooks(db: String, table: String) extends CatalogHooks {
  override def locked[T](publish: => T): T = publish
  override def schemaChanged(t: FileStoreTable, schema: TableSchema): Unit = ()
  override def committed(t: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit = ()
  override def markDone(t: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit =
    CatalogHooks.NoHooks.markDone(t, action, partitions)
  override def icebergRegistry: Option[IcebergRegistry] = Some(new IcebergHiveRegistry(None, "filesystem", db, table))
}
