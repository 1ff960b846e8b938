package paimonspark.catalog.jdbc

import org.apache.hadoop.fs.Path

import paimonspark.{CommitConflictException, PaimonException, TableNotFoundException, UnsupportedFeatureException}
import paimonspark.catalog.{Catalog, Database, FileSystemCatalog, TableProperties}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.TableSchema
import paimonspark.fs.FileIO
import paimonspark.table.FileStoreTable

/**
 * Paimon's JDBC catalog: databases and tables are rows of a catalog database ([[JdbcRecords]]: SQLite,
 * PostgreSQL, MySQL), tables' files are at `<warehouse>/<db>.db/<table>` as in the filesystem catalog, and a
 * table exists when it has both its row and its schema files. With `lock.enabled` (on by default on object
 * stores) commits, creates and schema changes of a table hold Paimon's distributed lock in that database
 * ([[JdbcLock]]), so our writers and Paimon's Java and Flink writers are serialized on one table.
 */
final class JdbcCatalog(settings: JdbcSettings, io: FileIO, warehouse: Path) extends Catalog {
  private val records = new JdbcRecords(settings)
  private val lockEnabled = settings.lockEnabled.getOrElse(io.isObjectStore(warehouse))
  records.ensureTables(withLocks = lockEnabled)

  override def describe: String = s"JDBC catalog ${settings.catalog} over ${settings.shownUri} (warehouse $warehouse)"

  private def databasePath(db: String) = new Path(warehouse, FileSystemCatalog.checkName("database", db) + TablePaths.DatabaseSuffix)
  private def tablePath(db: String, table: String) = new Path(databasePath(db), FileSystemCatalog.checkName("table", table))
  private def hooks(db: String, table: String) = new JdbcHooks(settings, db, table, lockEnabled)

  override def listDatabases(): Seq[String] = records.listDatabases()

  override def databaseExists(db: String): Boolean = records.databaseExists(db)

  override def loadDatabase(db: String): Database = {
    if (!databaseExists(db)) throw noDatabase(db)
    val properties = records.databaseProperties(db) - JdbcCatalog.Exists
    Database(db, Some(properties.getOrElse(Database.Location, databasePath(db).toString)), properties.get(Database.Comment),
      properties -- Seq(Database.Location, Database.Comment))
  }

  /** Rows only, as in Paimon: the marker `exists`, the location `<warehouse>/<db>.db` unless given, the properties. */
  override def createDatabase(db: String, properties: Map[String, String]): Unit = {
    if (databaseExists(db)) throw new CommitConflictException(db, s"database $db already exists in $describe")
    records.insertDatabaseProperties(db, Map(JdbcCatalog.Exists -> "true", Database.Location -> databasePath(db).toString) ++
      properties)
  }

  override def alterDatabase(db: String, set: Map[String, String], removed: Set[String]): Unit = {
    if (!databaseExists(db)) throw noDatabase(db)
    val existing = records.databaseProperties(db)
    records.insertDatabaseProperties(db, set.filterNot { case (k, _) => existing.contains(k) })
    records.updateDatabaseProperties(db, set.filter { case (k, _) => existing.contains(k) })
    records.deleteDatabaseProperties(db, removed.filter(existing.contains).toSeq)
  }

  /** With `cascade`, its tables are dropped first, files and all, as the other catalogs drop them. */
  override def dropDatabase(db: String, cascade: Boolean): Boolean = databaseExists(db) && {
    val tables = records.listTables(db)
    if (!cascade && tables.nonEmpty) throw new PaimonException(s"database $db is not empty; use DROP DATABASE $db CASCADE")
    tables.foreach(dropTable(db, _))
    records.dropDatabase(db)
    true
  }

  override def listTables(db: String): Seq[String] = {
    if (!databaseExists(db)) throw noDatabase(db)
    records.listTables(db)
  }

  override def tableExists(db: String, table: String): Boolean =
    records.tableExists(db, table) && FileStoreTable.exists(io, tablePath(db, table))

  override def loadTable(db: String, table: String): FileStoreTable = {
    if (!tableExists(db, table)) throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist in $describe")
    FileStoreTable.load(io, tablePath(db, table), hooks(db, table))
  }

  /** Schema 0 first (under the lock), then the row; a row that cannot be written takes the files back. */
  override def createTable(db: String, table: String, schema: TableSchema, location: Option[String],
      external: Boolean): FileStoreTable = {
    if (location.isDefined || external) {
      throw new UnsupportedFeatureException(s"table $db.$table: LOCATION and external tables are not supported by the " +
        s"JDBC catalog, whose tables live in its warehouse ($warehouse), as in Paimon")
    }
    if (!databaseExists(db)) throw noDatabase(db)
    if (records.tableExists(db, table)) throw new CommitConflictException(s"$db.$table", s"table $db.$table already exists")
    val path = tablePath(db, table)
    val created = FileStoreTable.create(io, path, schema, hooks(db, table)).getOrElse(throw new CommitConflictException(
      s"$db.$table", s"table $db.$table: its directory $path already holds a schema; nothing was created"))
    try records.insertTable(db, table) catch {
      case e: Throwable => io.delete(path, recursive = true); throw e
    }
    records.syncTableProperties(db, table, TableProperties.of(schema))
    created
  }

  override def dropTable(db: String, table: String): Boolean = records.tableExists(db, table) && {
    records.dropTable(db, table)
    records.deleteTableProperties(db, table)
    io.delete(tablePath(db, table), recursive = true)
    true
  }

  /** The row first, then the directory, as in Paimon; a directory that cannot move puts the row back. */
  override def renameTable(db: String, table: String, newDb: String, newTable: String): Unit = {
    if (!tableExists(db, table)) throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist")
    if (tableExists(newDb, newTable)) throw new CommitConflictException(s"$newDb.$newTable",
      s"cannot rename table $db.$table to $newDb.$newTable: $newDb.$newTable already exists")
    records.renameTable(db -> table, newDb -> newTable)
    if (!io.rename(tablePath(db, table), tablePath(newDb, newTable))) {
      records.renameTable(newDb -> newTable, db -> table)
      throw new CommitConflictException(s"$newDb.$newTable", s"cannot rename table $db.$table to $newDb.$newTable: " +
        s"${tablePath(newDb, newTable)} exists already or cannot be made; nothing was changed")
    }
  }

  /** Paimon's repairs: rows written again for the databases and tables the warehouse holds. */
  override def repairCatalog(): Unit = new FileSystemCatalog(io, warehouse).listDatabases().foreach(repairDatabase)

  override def repairDatabase(db: String): Unit = {
    if (!databaseExists(db)) createDatabase(db, Map.empty)
    if (io.isDirectory(databasePath(db))) FileSystemCatalog.tablesIn(io, databasePath(db)).foreach(repairTable(db, _))
  }

  override def repairTable(db: String, table: String): Unit = {
    val files = try FileStoreTable.load(io, tablePath(db, table)) catch {
      case _: TableNotFoundException => throw new TableNotFoundException(s"$db.$table", s"repair: table $db.$table has " +
        s"no schema files at ${tablePath(db, table)}")
    }
    if (!databaseExists(db)) createDatabase(db, Map.empty)
    if (!records.tableExists(db, table)) records.insertTable(db, table)
    records.syncTableProperties(db, table, TableProperties.of(files.schema))
  }

  private def noDatabase(db: String) = new TableNotFoundException(db, s"database $db does not exist in $describe")
}

object JdbcCatalog {
  /** The property that marks a database as created, which Paimon writes and never shows. */
  val Exists = "exists"
}
