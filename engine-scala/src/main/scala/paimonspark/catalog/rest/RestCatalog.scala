package paimonspark.catalog.rest

import org.apache.hadoop.fs.Path

import paimonspark.{CommitConflictException, PaimonException, TableNotFoundException, UnsupportedFeatureException}
import paimonspark.catalog.{Catalog, Database}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{Json, TableSchema}
import paimonspark.fs.{FileIO, StorageCredentials}
import paimonspark.table.FileStoreTable
import paimonspark.table.schema.{SchemaChange, SchemaChanges}

/**
 * Paimon's REST catalog: a server owns databases, tables, their schemas and latest snapshots, and the
 * engine writes data files and manifests under each table's path, which the server names. Creating,
 * altering, renaming and dropping are requests to it; commits are too ([[RestHooks]]). The server's
 * `/v1/config` is read when the catalog starts, so a wrong token or address fails there. A server that
 * sets `data-token.enabled` hands out storage credentials per table ([[RestTokens]]).
 */
final class RestCatalog(settings: RestSettings, io: FileIO) extends Catalog {
  private val client = new RestClient(settings)
  /** Whether the server hands out storage credentials per table, which its tables' files are then reached with. */
  private val dataTokens = client.options.get(RestCatalog.DataToken).exists(_.trim.equalsIgnoreCase("true"))

  override def describe: String = s"REST catalog ${settings.catalog} at ${settings.uri} (warehouse ${settings.warehouse})"

  private def databases = s"${client.root}/databases"
  private def databasePath(db: String) = s"$databases/${client.encode(db)}"

  override def listDatabases(): Seq[String] = client.listAll(databases, "databases").map(_.asText()).sorted

  override def databaseExists(db: String): Boolean = found(client.get(databasePath(db))).isDefined

  override def loadDatabase(db: String): Database = {
    val node = found(client.get(databasePath(db))).getOrElse(throw noDatabase(db))
    val options = Json.stringMap(Json.field(node, "options"))
    Database(db, Json.field(node, "location").map(_.asText()), options.get(Database.Comment),
      options -- Seq(Database.Comment, Database.Location))
  }

  override def createDatabase(db: String, properties: Map[String, String]): Unit =
    try client.post(databases, RestMessages.createDatabase(db, properties)) catch {
      case e: RestStatusException if e.status == 409 =>
        throw new CommitConflictException(db, s"database $db already exists in $describe")
    }

  override def alterDatabase(db: String, set: Map[String, String], removed: Set[String]): Unit =
    found(client.post(databasePath(db), RestMessages.alterDatabase(removed, set))).getOrElse(throw noDatabase(db))

  override def dropDatabase(db: String, cascade: Boolean): Boolean = databaseExists(db) && {
    val tables = listTables(db)
    if (!cascade && tables.nonEmpty) throw new PaimonException(s"database $db is not empty; use DROP DATABASE $db CASCADE")
    tables.foreach(dropTable(db, _))
    found(client.delete(databasePath(db))).isDefined
  }

  override def listTables(db: String): Seq[String] =
    try client.listAll(s"${databasePath(db)}/tables", "tables").map(_.asText()).sorted catch {
      case e: RestStatusException if e.status == 404 => throw noDatabase(db)
    }

  override def tableExists(db: String, table: String): Boolean =
    found(client.get(RestCatalog.tablePath(client, db, table))).isDefined

  override def loadTable(db: String, table: String): FileStoreTable = {
    val node = found(client.get(RestCatalog.tablePath(client, db, table))).getOrElse(
      throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist in $describe"))
    val answer = RestMessages.table(node)
    if (answer.external) {
      throw new UnsupportedFeatureException(s"table $db.$table is an external table of $describe (its files at " +
        s"${answer.path}, which the server does not manage): external tables in a REST catalog are not supported yet")
    }
    val tableIO = if (dataTokens) io.withCredentials(new StorageCredentials(new RestTokens(settings, db, table))) else io
    new FileStoreTable(tableIO, new TablePaths(new Path(answer.path)), answer.schema,
      hooks = new RestHooks(settings, db, table, answer.uuid))
  }

  /** The server writes schema 0 and the table's directory, at the path it chooses. */
  override def createTable(db: String, table: String, schema: TableSchema, location: Option[String],
      external: Boolean): FileStoreTable = {
    if (location.isDefined || external) {
      throw new UnsupportedFeatureException(s"table $db.$table: LOCATION and external tables in a REST catalog are " +
        "not supported yet; the server places its tables")
    }
    try client.post(s"${databasePath(db)}/tables", RestMessages.createTable(db, table, schema)) catch {
      case e: RestStatusException if e.status == 409 =>
        throw new CommitConflictException(s"$db.$table", s"table $db.$table already exists")
      case e: RestStatusException if e.status == 404 => throw noDatabase(db)
    }
    loadTable(db, table)
  }

  /** The server deletes a managed table's files. */
  override def dropTable(db: String, table: String): Boolean =
    found(client.delete(RestCatalog.tablePath(client, db, table))).isDefined

  override def renameTable(db: String, table: String, newDb: String, newTable: String): Unit =
    try client.post(s"${client.root}/tables/rename", RestMessages.renameTable(db -> table, newDb -> newTable)) catch {
      case e: RestStatusException if e.status == 409 => throw new CommitConflictException(s"$newDb.$newTable",
        s"cannot rename table $db.$table to $newDb.$newTable: $newDb.$newTable already exists")
      case e: RestStatusException if e.status == 404 =>
        throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist in $describe: ${e.getMessage}")
    }

  /** Sends the changes, once they passed Paimon's rules here, as Paimon's actions; the server writes the schema. */
  override def alterTable(db: String, table: String, store: FileStoreTable, changes: Seq[SchemaChange],
      name: String): FileStoreTable = {
    val actions = SchemaChanges.prepare(store, name, changes)
    try client.post(RestCatalog.tablePath(client, db, table), RestMessages.alterTable(actions)) catch {
      case e: RestStatusException if e.status == 404 =>
        throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist in $describe: ${e.getMessage}")
    }
    loadTable(db, table)
  }

  /** The answer, or None for a 404: the resource does not exist. */
  private def found[T](request: => T): Option[T] =
    try Some(request) catch { case e: RestStatusException if e.status == 404 => None }

  private def noDatabase(db: String) = new TableNotFoundException(db, s"database $db does not exist in $describe")
}

object RestCatalog {
  val DataToken = "data-token.enabled"

  def tablePath(client: RestClient, db: String, table: String): String =
    s"${client.root}/databases/${client.encode(db)}/tables/${client.encode(table)}"
}
