package paimonspark.catalog

import org.apache.hadoop.fs.Path

import paimonspark.{CommitConflictException, InvalidIdentifierException, PaimonException, TableNotFoundException}
import paimonspark.format.{TablePaths, TableSchema}
import paimonspark.fs.FileIO
import paimonspark.table.FileStoreTable

/**
 * Paimon's filesystem catalog: a database is a directory `<warehouse>/<db>.db`, a table is a
 * directory in it holding `schema/schema-N`. It stores no database properties.
 */
final class FileSystemCatalog(val io: FileIO, val warehouse: Path) {
  import FileSystemCatalog._

  def databasePath(db: String): Path = new Path(warehouse, checkName("database", db) + TablePaths.DatabaseSuffix)

  def tablePath(db: String, table: String): Path = new Path(databasePath(db), checkName("table", table))

  def databaseExists(db: String): Boolean = io.isDirectory(databasePath(db))

  def listDatabases(): Seq[String] = io.list(warehouse).filter(_.isDirectory).map(_.getPath.getName)
    .filter(_.endsWith(TablePaths.DatabaseSuffix)).map(_.stripSuffix(TablePaths.DatabaseSuffix)).sorted

  def createDatabase(db: String): Unit = io.mkdirs(databasePath(db))

  def listTables(db: String): Seq[String] =
    io.list(databasePath(db)).filter(_.isDirectory).map(_.getPath.getName)
      .filter(name => FileStoreTable.exists(io, new Path(databasePath(db), name))).sorted

  /** Drops a database directory; with tables in it only when `cascade`. */
  def dropDatabase(db: String, cascade: Boolean): Boolean = {
    if (!databaseExists(db)) false
    else {
      if (!cascade && listTables(db).nonEmpty) {
        throw new PaimonException(s"database $db is not empty; use DROP DATABASE $db CASCADE")
      }
      io.delete(databasePath(db), recursive = true)
    }
  }

  def tableExists(db: String, table: String): Boolean = FileStoreTable.exists(io, tablePath(db, table))

  def loadTable(db: String, table: String): FileStoreTable = {
    val path = tablePath(db, table)
    if (!FileStoreTable.exists(io, path)) throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist")
    FileStoreTable.load(io, path)
  }

  /** Creates a table by publishing its schema 0; fails if another writer created it first. */
  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable = {
    if (!databaseExists(db)) throw new TableNotFoundException(db, s"database $db does not exist")
    FileStoreTable.create(io, tablePath(db, table), schema).getOrElse(
      throw new CommitConflictException(s"$db.$table", s"table $db.$table already exists"))
  }

  /** Deletes a table and all its files. */
  def dropTable(db: String, table: String): Boolean =
    tableExists(db, table) && io.delete(tablePath(db, table), recursive = true)
}

object FileSystemCatalog {
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
