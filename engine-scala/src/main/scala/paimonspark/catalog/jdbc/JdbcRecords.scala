package paimonspark.catalog.jdbc

import java.sql.{Connection, PreparedStatement, SQLIntegrityConstraintViolationException}

import scala.collection.mutable.ArrayBuffer

import paimonspark.CommitConflictException

/**
 * The catalog's rows in its database, in Paimon's own tables and statements (`JdbcUtils`), so that Paimon's
 * Java `JdbcCatalog`, pypaimon's and ours share one catalog database: `paimon_tables` (a table per row),
 * `paimon_database_properties` (a database's properties, with the marker `exists`), `paimon_table_properties`
 * (a table's options, with `sync-all-properties`), each row under the catalog's `catalog-key`.
 */
final class JdbcRecords(settings: JdbcSettings) {
  import JdbcRecords._

  private def db = JdbcConnections.of(settings)
  private val key = settings.catalogKey

  /** Creates Paimon's tables that the database lacks, each checked by name first as Paimon checks it. */
  def ensureTables(withLocks: Boolean): Unit = db.run("create the catalog's tables") { c =>
    def missing(name: String) = { val r = c.getMetaData.getTables(null, null, name, null); try !r.next() finally r.close() }
    val ddl = Seq(Tables -> CreateTables, DatabaseProperties -> CreateDatabaseProperties,
      TableProperties -> CreateTableProperties) ++ Option.when(withLocks)(Locks -> createLocks(settings.lockKeyMaxLength))
    ddl.foreach { case (name, create) => if (missing(name)) { val s = c.createStatement(); try s.execute(create) finally s.close() } }
  }

  def tableExists(database: String, table: String): Boolean =
    query("look a table up", s"SELECT * FROM $Tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? ",
      Seq(key, database, table))(_ => ()).nonEmpty

  def listTables(database: String): Seq[String] =
    query("list tables", s"SELECT * FROM $Tables WHERE catalog_key = ? AND database_name = ?", Seq(key, database))(
      _.getString("table_name")).sorted

  def insertTable(database: String, table: String): Unit =
    update("record a table", s"INSERT INTO $Tables (catalog_key, database_name, table_name)  VALUES (?,?,?)",
      Seq(key, database, table))

  def dropTable(database: String, table: String): Int =
    update("drop a table", s"DELETE FROM $Tables WHERE catalog_key = ? AND database_name = ? AND table_name = ? ",
      Seq(key, database, table))

  /** Moves a table's row (and its properties' rows); a row already under the new name is a conflict. */
  def renameTable(from: (String, String), to: (String, String)): Int = {
    val moved = try update("rename a table", s"UPDATE $Tables SET database_name = ? , table_name = ?  WHERE catalog_key = ? " +
      "AND database_name = ? AND table_name = ? ", Seq(to._1, to._2, key, from._1, from._2))
    catch {
      case e: Exception if causes(e).exists(c => c.isInstanceOf[SQLIntegrityConstraintViolationException] ||
          String.valueOf(c.getMessage).contains("constraint") || String.valueOf(c.getMessage).contains("duplicate key")) =>
        throw new CommitConflictException(s"${to._1}.${to._2}", s"cannot rename table ${from._1}.${from._2} to " +
          s"${to._1}.${to._2}: ${to._1}.${to._2} already exists")
    }
    if (settings.syncAllProperties) {
      update("rename a table's properties", s"UPDATE $TableProperties SET database_name = ? , table_name = ?  WHERE " +
        "catalog_key = ? AND database_name = ? AND table_name = ? ", Seq(to._1, to._2, key, from._1, from._2))
    }
    moved
  }

  def databaseExists(database: String): Boolean =
    query("look a database up", s"SELECT database_name FROM $Tables WHERE catalog_key = ? AND database_name = ? LIMIT 1",
      Seq(key, database))(_ => ()).nonEmpty ||
      query("look a database up", s"SELECT database_name FROM $DatabaseProperties WHERE catalog_key = ? AND " +
        "database_name = ? ", Seq(key, database))(_ => ()).nonEmpty

  /** Databases with a table or properties; Paimon's order is the database's, so they are sorted here. */
  def listDatabases(): Seq[String] =
    (query("list databases", s"SELECT DISTINCT database_name FROM $Tables WHERE catalog_key = ?", Seq(key))(_.getString(1)) ++
      query("list databases", s"SELECT DISTINCT database_name FROM $DatabaseProperties WHERE catalog_key = ?", Seq(key))(
        _.getString(1))).distinct.sorted

  def databaseProperties(database: String): Map[String, String] =
    query("read a database's properties", s"SELECT *  FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ? ",
      Seq(key, database))(r => r.getString("property_key") -> r.getString("property_value")).toMap

  def insertDatabaseProperties(database: String, properties: Map[String, String]): Unit = if (properties.nonEmpty) {
    val rows = properties.toSeq
    update("record a database's properties", s"INSERT INTO $DatabaseProperties (catalog_key, database_name, " +
      s"property_key, property_value) VALUES ${rows.map(_ => "(?,?,?,?)").mkString(", ")}",
      rows.flatMap { case (k, v) => Seq(key, database, k, v) })
  }

  def updateDatabaseProperties(database: String, properties: Map[String, String]): Unit = if (properties.nonEmpty) {
    val rows = properties.toSeq
    update("update a database's properties", s"UPDATE $DatabaseProperties SET property_value = CASE" +
      rows.map(_ => " WHEN property_key = ? THEN ?").mkString + " END WHERE catalog_key = ? AND database_name = ? AND " +
      s"property_key IN (${rows.map(_ => "?").mkString(",")})",
      rows.flatMap { case (k, v) => Seq(k, v) } ++ Seq(key, database) ++ rows.map(_._1))
  }

  def deleteDatabaseProperties(database: String, keys: Seq[String]): Unit = if (keys.nonEmpty) {
    update("remove a database's properties", s"DELETE FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ? " +
      s"AND property_key IN (${keys.map(_ => "?").mkString(",")})", Seq(key, database) ++ keys)
  }

  /** Every row of a database: its tables', its properties' and its tables' properties'. */
  def dropDatabase(database: String): Unit = {
    update("drop a database's tables", s"DELETE FROM  $Tables WHERE catalog_key = ? AND database_name = ?", Seq(key, database))
    update("drop a database's properties", s"DELETE FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ?",
      Seq(key, database))
    if (settings.syncAllProperties) {
      update("drop a database's table properties", s"DELETE FROM $TableProperties WHERE catalog_key = ? AND " +
        "database_name = ?", Seq(key, database))
    }
  }

  /** A table's properties replaced by `properties`, with `sync-all-properties`. */
  def syncTableProperties(database: String, table: String, properties: Map[String, String]): Unit =
    if (settings.syncAllProperties) {
      deleteTableProperties(database, table)
      val rows = properties.toSeq
      if (rows.nonEmpty) {
        update("record a table's properties", s"INSERT INTO $TableProperties (catalog_key, database_name, table_name, " +
          s"property_key, property_value) VALUES ${rows.map(_ => "(?,?,?,?,?)").mkString(", ")}",
          rows.flatMap { case (k, v) => Seq(key, database, table, k, v) })
      }
    }

  def deleteTableProperties(database: String, table: String): Unit = if (settings.syncAllProperties) {
    update("drop a table's properties", s"DELETE FROM $TableProperties WHERE catalog_key = ? AND database_name = ? AND " +
      "table_name = ?", Seq(key, database, table))
  }

  private def prepared[T](c: Connection, sql: String, params: Seq[String])(use: PreparedStatement => T): T = {
    val statement = c.prepareStatement(sql)
    try {
      params.zipWithIndex.foreach { case (p, i) => statement.setString(i + 1, p) }
      use(statement)
    } finally statement.close()
  }

  private def update(what: String, sql: String, params: Seq[String]): Int =
    db.run(what)(c => prepared(c, sql, params)(_.executeUpdate()))

  private def query[T](what: String, sql: String, params: Seq[String])(row: java.sql.ResultSet => T): Seq[T] =
    db.run(what)(c => prepared(c, sql, params) { s =>
      val rows = s.executeQuery()
      val out = ArrayBuffer.empty[T]
      try while (rows.next()) out += row(rows) finally rows.close()
      out.toSeq
    })
}

object JdbcRecords {
  val Tables = "paimon_tables"
  val DatabaseProperties = "paimon_database_properties"
  val TableProperties = "paimon_table_properties"
  val Locks = "paimon_distributed_locks"

  private val CreateTables = s"CREATE TABLE $Tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL," +
    "table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))"
  private val CreateDatabaseProperties = s"CREATE TABLE $DatabaseProperties(catalog_key VARCHAR(255) NOT NULL," +
    "database_name VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000)," +
    "PRIMARY KEY (catalog_key, database_name, property_key))"
  private val CreateTableProperties = s"CREATE TABLE $TableProperties(catalog_key VARCHAR(255) NOT NULL," +
    "database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,property_key VARCHAR(255) NOT NULL," +
    "property_value VARCHAR(1000),PRIMARY KEY (catalog_key, database_name, table_name, property_key))"
  private def createLocks(keyLength: Int) = s"CREATE TABLE $Locks(lock_id VARCHAR($keyLength) NOT NULL,acquired_at " +
    "TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))"

  private def causes(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq
}
