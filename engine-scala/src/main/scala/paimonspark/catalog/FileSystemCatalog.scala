package paimonspark.catalog

import org.apache.hadoop.fs.Path

import paimonspark.{CommitConflictException, InvalidIdentifierException, PaimonException, TableNotFoundException,
  UnsupportedFeatureException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.TableSchema
import paimonspark.fs.FileIO
import paimonspark.table.FileStoreTable

/**
 * Paimon's filesystem catalog: a database is a directory `<warehouse>/<db>.db`, a table is a
 * directory in it holding `schema/schema-N`. It stores no database properties.
 */
final class FileSystemCatalog(val io: FileIO, val warehouse: Path) extends Catalog {
  import FileSystemCatalog._

  override def describe: String = s"warehouse $warehouse"

  def databasePath(db: String): Path = new Path(warehouse, checkName("database", db) + TablePaths.DatabaseSuffix)

  def tablePath(db: String, table: String): Path = new Path(databasePath(db), checkName("table", table))

  override def databaseExists(db: String): Boolean = io.isDirectory(databasePath(db))

  override def listDatabases(): Seq[String] = io.list(warehouse).filter(_.isDirectory).map(_.getPath.getName)
    .filter(_.endsWith(TablePaths.DatabaseSuffix)).map(_.stripSuffix(TablePaths.DatabaseSuffix)).sorted

  override def loadDatabase(db: String): Database = Database(db, Some(databasePath(db).toString), None, Map.empty)

  override def createDatabase(db: String, properties: Map[String, String]): Unit = {
    properties.keys.find(_ != Database.Owner).foreach { k =>
      throw new UnsupportedFeatureException(s"database $db: the filesystem catalog stores no database properties " +
        s"(got '$k'); a metastore catalog (metastore=hive) does")
    }
    io.mkdirs(databasePath(db))
  }

  override def alterDatabase(db: String, set: Map[String, String], removed: Set[String]): Unit =
    throw new UnsupportedFeatureException(
      s"database $db: the filesystem catalog stores no database properties; a metastore catalog (metastore=hive) does")

  override def listTables(db: String): Seq[String] = tablesIn(io, databasePath(db))

  override def dropDatabase(db: String, cascade: Boolean): Boolean = {
    if (!databaseExists(db)) false
    else {
      if (!cascade && listTables(db).nonEmpty) {
        throw new PaimonException(s"database $db is not empty; use DROP DATABASE $db CASCADE")
      }
      io.delete(databasePath(db), recursive = true)
    }
  }

  override def tableExists(db: String, table: String): Boolean = FileStoreTable.exists(io, tablePath(db, table))

  override def loadTable(db: String, table: String): FileStoreTable = {
    FileStoreTable.loadIfExists(io, tablePath(db, table), new FileSystemHooks(db, table)).getOrElse(
      throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist"))
  }

  /** Publishes the table's schema 0; fails if another writer created it first. */
  override def createTable(db: String, table: String, schema: TableSchema, location: Option[String],
      external: Boolean): FileStoreTable = {
    if (location.isDefined || external) {
      throw new UnsupportedFeatureException(s"table $db.$table: LOCATION and external tables are not supported by the " +
        "filesystem catalog, whose tables live in the warehouse; a metastore catalog (metastore=hive) supports them")
    }
    if (!databaseExists(db)) throw new TableNotFoundException(db, s"database $db does not exist")
    FileStoreTable.create(io, tablePath(db, table), schema, new FileSystemHooks(db, table)).getOrElse(
      throw new CommitConflictException(s"$db.$table", s"table $db.$table already exists"))
  }

  /** Deletes a table and all its files. */
  override def dropTable(db: String, table: String): Boolean =
    tableExists(db, table) && io.delete(tablePath(db, table), recursive = true)

  /** Moves the table's directory, as Paimon's filesystem catalog does. */
  override def renameTable(db: String, table: String, newDb: String, newTable: String): Unit = {
    if (!tableExists(db, table)) throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist")
    if (!databaseExists(newDb)) throw new TableNotFoundException(newDb, s"database $newDb does not exist")
    if (!io.rename(tablePath(db, table), tablePath(newDb, newTable))) {
      throw new CommitConflictException(s"$newDb.$newTable", s"cannot rename table $db.$table to $newDb.$newTable: " +
        s"$newDb.$newTable already exists")
    }
  }
}

object FileSystemCatalog {
  /** The tables whose directories are in `dir`: those holding schema files. */
  def tablesIn(io: FileIO, dir: Path): Seq[String] =
    io.list(dir).filter(_.isDirectory).map(_.getPath.getName).filter(name => FileStoreTable.exists(io, new Path(dir, name)))
      .sorted

  private val Forbidden = "/\\:*?\"<>|$".toSet

  /** Names become directory names: no path characters, no leading dot, nothing hidden or special. */
  def checkName(kind: String, name: String): String = {
    val bad = name.isEmpty || name.startsWith(".") || name.exists(c => Forbidden.contains(c) || c < 0x20 || c == 0x7f) ||
      name.trim != name
    if (bad) {
      throw new InvalidIdentifierException(name, s"invalid $kind name '$name': names may not be empty, start with '.', " +
        "have surrounding spaces, or contain / \\ : * ? \" < > | $ or control characters")
    }
    name
  }
}
