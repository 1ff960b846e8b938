package paimonspark.catalog

import paimonspark.UnsupportedFeatureException
import paimonspark.format.metadata.TableSchema
import paimonspark.table.FileStoreTable
import paimonspark.table.schema.{SchemaChange, SchemaChanges}

/** A database as its catalog records it. Spark's reserved namespace properties map onto these fields. */
final case class Database(name: String, location: Option[String], comment: Option[String], properties: Map[String, String]) {
  /** As Spark's `DESCRIBE NAMESPACE` and Paimon's `getDatabase` show it: fields as reserved keys, then the rest. */
  def asProperties: Map[String, String] =
    properties ++ location.map(Database.Location -> _) ++ comment.map(Database.Comment -> _)
}

object Database {
  val Location = "location"
  val Comment = "comment"
  val Owner = "owner"
}

/**
 * Where a warehouse's databases and tables are found by name: directories alone
 * ([[FileSystemCatalog]]), a metastore that registers them ([[hive.MetastoreCatalog]]), or a catalog
 * server that keeps their schemas and latest snapshots itself ([[rest.RestCatalog]]). Tables the catalog
 * loads carry its [[paimonspark.table.CatalogHooks]], so their commits and schema changes reach it.
 */
trait Catalog {
  /** What errors call this catalog: its warehouse, or its metastore's URI. */
  def describe: String

  def listDatabases(): Seq[String]
  def databaseExists(db: String): Boolean
  /** The database, which must exist. */
  def loadDatabase(db: String): Database
  /** Creates a database from Spark's namespace properties (`location`, `comment`, `owner`, others). */
  def createDatabase(db: String, properties: Map[String, String]): Unit
  def alterDatabase(db: String, set: Map[String, String], removed: Set[String]): Unit
  /** Drops a database; with tables in it only when `cascade`. False if it did not exist. */
  def dropDatabase(db: String, cascade: Boolean): Boolean

  def listTables(db: String): Seq[String]
  def tableExists(db: String, table: String): Boolean
  def loadTable(db: String, table: String): FileStoreTable
  /**
   * Creates a table by publishing its schema 0 and registering it: at `location` when given (Spark's
   * LOCATION), else in its database; `external` tables keep their files when dropped.
   */
  def createTable(db: String, table: String, schema: TableSchema, location: Option[String] = None,
      external: Boolean = false): FileStoreTable
  def dropTable(db: String, table: String): Boolean
  def renameTable(db: String, table: String, newDb: String, newTable: String): Unit

  /**
   * Applies `changes` to `store` (the table `db.table`, which errors call `name`) as one new schema version:
   * published beside the table's files, or sent to a catalog that keeps its schemas.
   */
  def alterTable(db: String, table: String, store: FileStoreTable, changes: Seq[SchemaChange], name: String)
      : FileStoreTable = SchemaChanges.alter(store, name, changes)

  /**
   * Paimon's repairs: the catalog's records made to match what the warehouse holds again, for all
   * its databases, one database's tables, or one table. A catalog that keeps no records of its own
   * has nothing to repair and refuses, as Paimon's filesystem catalog does.
   */
  def repairCatalog(): Unit = throw noRepair
  def repairDatabase(db: String): Unit = throw noRepair
  def repairTable(db: String, table: String): Unit = throw noRepair

  private def noRepair = new UnsupportedFeatureException(s"repair: the catalog over $describe keeps no records besides " +
    "the warehouse's own files, so there is nothing to repair; repair is for a metastore catalog (metastore=hive)", "repair")
}
