package paimonspark.catalog.jdbc

import paimonspark.catalog.TableProperties
import paimonspark.format.metadata.{Snapshot, TableSchema}
import paimonspark.table.{CatalogHooks, FileStoreTable}

/**
 * What a JDBC catalog adds to the commits of its table `db.table`: its distributed lock around each
 * publish when `locked`, and with `sync-all-properties` its record of the table's options following each
 * schema change. Commits themselves write no row, as in Paimon.
 */
final class JdbcHooks(settings: JdbcSettings, db: String, table: String, locked: Boolean) extends CatalogHooks {
  override def locked[T](publish: => T): T = if (locked) new JdbcLock(settings, db, table).holding(publish) else publish

  override def schemaChanged(t: FileStoreTable, schema: TableSchema): Unit =
    new JdbcRecords(settings).syncTableProperties(db, table, TableProperties.of(schema))

  override def committed(t: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit = ()

  override def markDone(t: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit =
    CatalogHooks.NoHooks.markDone(t, action, partitions)
}
