package paimonspark.catalog

import paimonspark.catalog.hive.IcebergHiveRegistry
import paimonspark.table.{CatalogHooks, IcebergRegistry}

/**
 * What a filesystem catalog adds to the commits of its table `db.table`: nothing but the name, under which
 * `metadata.iceberg.storage` = `hive-catalog` registers the table's Iceberg metadata in the metastore its
 * `metadata.iceberg.uri` names.
 */
final class FileSystemHooks(db: String, table: String) extends CatalogHooks.NoHooks {
  override def icebergRegistry: Option[IcebergRegistry] = Some(new IcebergHiveRegistry(None, "filesystem", db, table))
}
