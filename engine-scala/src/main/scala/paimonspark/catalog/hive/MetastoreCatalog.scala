package paimonspark.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.metastore.api.{AlreadyExistsException, Database => HiveDatabase, NoSuchObjectException, Table}
import org.apache.hadoop.security.UserGroupInformation

import paimonspark.{CommitConflictException, InvalidIdentifierException, MetastoreException, PaimonException,
  TableNotFoundException}
import paimonspark.catalog.{Catalog, Database, FileSystemCatalog}
import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, MapType, MultisetType, RowType, TablePaths}
import paimonspark.format.metadata.TableSchema
import paimonspark.fs.FileIO
import paimonspark.table.FileStoreTable

/**
 * Paimon's Hive catalog: databases and tables registered in a Hive Metastore as Paimon's
 * `HiveCatalog` registers them, so that Flink, Trino, Hive and Paimon's own catalogs find them by
 * name. The metastore records where a table is; its files (the schema above all) stay the truth,
 * and the metastore's columns and parameters follow them. A failed registration takes back what
 * was written, so the metastore and the files never disagree on whether a table exists.
 */
final class MetastoreCatalog(settings: MetastoreSettings, io: FileIO, warehouse: Path) extends Catalog {
  import MetastoreCatalog._

  private val clients = MetastoreClients.of(settings)
  private val records = new RecordCache(settings)

  override def describe: String = s"metastore ${settings.uri}"

  private def lockEnabled(location: Path): Boolean = settings.lockEnabled.getOrElse(io.isObjectStore(location))

  private def hooks(db: String, table: String, location: Path) =
    new MetastoreHooks(settings, db, table, lockEnabled(location))

  // ---- databases ----

  override def listDatabases(): Seq[String] = clients.run("list databases")(_.getAllDatabases.asScala.toSeq).sorted

  private def hiveDatabase(db: String) = clients.run(s"load database $db") { c =>
    try Some(c.getDatabase(db)) catch { case _: NoSuchObjectException => None }
  }

  private def existingDatabase(db: String): HiveDatabase =
    hiveDatabase(db).getOrElse(throw new TableNotFoundException(db, s"database $db does not exist in $describe"))

  private def databaseLocation(d: HiveDatabase): Path = new Path(HmsTables.location(d, settings).getOrElse(
    throw new MetastoreException(d.getName, s"database ${d.getName} in $describe records no location")))

  override def databaseExists(db: String): Boolean = hiveDatabase(checkName("database", db)).isDefined

  override def loadDatabase(db: String): Database = {
    val d = existingDatabase(db)
    val parameters = Option(d.getParameters).map(_.asScala.toMap).getOrElse(Map.empty) - HmsTables.LocationParameter
    Database(db, HmsTables.location(d, settings), Option(d.getDescription),
      parameters ++ Option(d.getOwnerName).map(Database.Owner -> _))
  }

  /** At `location` if given, else `<warehouse>/<db>.db`, created on the filesystem first, as Paimon does. */
  override def createDatabase(db: String, properties: Map[String, String]): Unit = {
    checkName("database", db)
    val location = properties.get(Database.Location).map(new Path(_))
      .getOrElse(new Path(warehouse, db + TablePaths.DatabaseSuffix))
    if (settings.locationInProperties) io.mkdirs(location)
    val record = HmsTables.database(db, location.toString, properties, settings)
    clients.run(s"create database $db") { c =>
      try c.createDatabase(record) catch {
        case _: AlreadyExistsException => throw new CommitConflictException(db, s"database $db already exists in $describe")
      }
    }
  }

  override def alterDatabase(db: String, set: Map[String, String], removed: Set[String]): Unit = {
    val current = loadDatabase(db)
    val properties = current.properties ++ current.comment.map(Database.Comment -> _) ++ set -- removed
    val record = HmsTables.database(db, current.location.orNull, properties, settings)
    clients.run(s"alter database $db")(_.alterDatabase(db, record))
  }

  /** With `cascade`, drops its Paimon tables as [[dropTable]] does first; the metastore drops the rest. */
  override def dropDatabase(db: String, cascade: Boolean): Boolean = hiveDatabase(db) match {
    case None => false
    case Some(d) =>
      val tables = clients.run(s"list tables of $db")(_.getAllTables(db).asScala.toSeq)
      if (!cascade && tables.nonEmpty) {
        throw new PaimonException(s"database $db is not empty; use DROP DATABASE $db CASCADE")
      }
      listTables(db).foreach(dropTable(db, _))
      clients.run(s"drop database $db")(_.dropDatabase(db, true, false, true))
      HmsTables.location(d, settings).map(new Path(_)).filter(io.exists).foreach(io.delete(_, recursive = true))
      true
  }

  // ---- tables ----

  private def record(db: String, table: String): Option[Table] = clients.run(s"load table $db.$table") { c =>
    try Some(c.getTable(db, table)) catch { case _: NoSuchObjectException => None }
  }

  /** Paimon tables only, recognised by their format classes, as Paimon lists them. */
  override def listTables(db: String): Seq[String] = clients.run(s"list tables of $db") { c =>
    val names = c.getAllTables(db).asScala.toSeq
    names.grouped(BatchSize).flatMap(batch => c.getTableObjectsByName(db, batch.asJava).asScala)
      .filter(HmsTables.isPaimon).map(_.getTableName).toSeq
  }.sorted

  /** Asked afresh: CREATE and DROP must not act on a remembered answer. */
  override def tableExists(db: String, table: String): Boolean = {
    records.invalidate(db, table)
    record(db, checkName("table", table)).exists(HmsTables.isPaimon)
  }

  /** Where the metastore says the table is (asked again when a remembered place holds no table), then its files. */
  override def loadTable(db: String, table: String): FileStoreTable = {
    def locate(hms: Table): Path = {
      if (!HmsTables.isPaimon(hms)) throw notPaimon(db, table, hms)
      new Path(HmsTables.location(hms, settings).getOrElse(throw new MetastoreException(s"$db.$table",
        s"table $db.$table in $describe records no location")))
    }
    def missing = throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist in $describe")
    def load(location: Path) = FileStoreTable.load(io, location, hooks(db, table, location))
    val remembered = locate(records.get(db, table)(record(db, table)).getOrElse(missing))
    // Loading lists the schema files once: a place without them is found out by the load itself.
    try load(remembered) catch {
      case _: TableNotFoundException =>
        records.invalidate(db, table)
        val current = locate(record(db, table).getOrElse(missing))
        try load(current) catch {
          case e: TableNotFoundException => throw new MetastoreException(s"$db.$table", s"table $db.$table is " +
            s"registered in $describe at $current, but has no schema files there (deleted outside the catalog?)", e)
        }
    }
  }

  /**
   * Schema 0 first (under the table lock), then the metastore record; if the metastore refuses, a
   * managed table's directory is deleted again (`HiveCatalog.createTableImpl`).
   */
  override def createTable(db: String, table: String, schema: TableSchema, location: Option[String],
      external: Boolean): FileStoreTable = {
    checkName("table", table)
    columnNames(schema.fields).find(n => n != n.toLowerCase).foreach { n =>
        throw new InvalidIdentifierException(n, s"table $db.$table: column '$n' has upper-case letters, which a Hive " +
          "metastore lower-cases; Paimon's Hive catalog takes lower-case names only")
      }
    val d = existingDatabase(db)
    record(db, table).foreach { existing =>
      if (HmsTables.isPaimon(existing)) throw new CommitConflictException(s"$db.$table", s"table $db.$table already exists")
      throw notPaimon(db, table, existing)
    }
    val isExternal = location.isDefined || external || settings.externalTables
    val path = location.map(new Path(_)).getOrElse(new Path(databaseLocation(d), table))
    records.invalidate(db, table)
    val created = FileStoreTable.create(io, path, schema, hooks(db, table, path)).getOrElse(
      throw new CommitConflictException(s"$db.$table", s"table $db.$table: $path already holds a Paimon table"))
    val hms = HmsTables.newTable(db, table, schema, path.toString, isExternal, settings, currentUser)
    try clients.run(s"create table $db.$table")(_.createTable(hms))
    catch {
      case e: Throwable =>
        if (isExternal) created.schemaManager.withdraw(schema.id) else io.delete(path, recursive = true)
        throw e
    }
    created
  }

  /** The record first; a managed table's files go after it (`deleteData`), external ones stay. */
  override def dropTable(db: String, table: String): Boolean = record(db, table) match {
    case None => false
    case Some(hms) if !HmsTables.isPaimon(hms) => throw notPaimon(db, table, hms)
    case Some(hms) =>
      records.invalidate(db, table)
      val external = HmsTables.isExternal(hms)
      clients.run(s"drop table $db.$table")(_.dropTable(db, table, !external, false, true))
      if (!external) HmsTables.location(hms, settings).map(new Path(_)).filter(io.exists).foreach(io.delete(_, recursive = true))
      true
  }

  /** Renames the record; a managed table's directory moves to its new database's place with it. */
  override def renameTable(db: String, table: String, newDb: String, newTable: String): Unit = {
    checkName("table", newTable)
    val hms = record(db, table).getOrElse(throw new TableNotFoundException(s"$db.$table", s"table $db.$table does not exist"))
    if (!HmsTables.isPaimon(hms)) throw notPaimon(db, table, hms)
    val target = hiveDatabase(newDb).getOrElse(throw new TableNotFoundException(newDb, s"database $newDb does not exist"))
    if (record(newDb, newTable).isDefined) {
      throw new CommitConflictException(s"$newDb.$newTable", s"cannot rename $db.$table: $newDb.$newTable already exists")
    }
    val renamed = hms.deepCopy()
    renamed.setDbName(newDb)
    renamed.setTableName(newTable)
    val from = HmsTables.location(hms, settings).map(new Path(_))
    val to = HmsTables.location(target, settings).map(l => new Path(l, newTable))
    val moves = !HmsTables.isExternal(hms) && from.isDefined && to.isDefined && from != to
    if (moves) {
      if (settings.locationInProperties) renamed.getParameters.put(HmsTables.LocationParameter, to.get.toString)
      else renamed.getSd.setLocation(to.get.toString)
    }
    records.invalidate(db, table)
    // Hive's own rename would move a managed table's directory too, to its own idea of the place.
    clients.run(s"rename table $db.$table")(_.alter_table(db, table, renamed))
    if (moves && !io.rename(from.get, to.get)) {
      clients.run(s"rename table $newDb.$newTable back")(_.alter_table(newDb, newTable, hms))
      throw new CommitConflictException(s"$newDb.$newTable", s"cannot rename $db.$table: ${to.get} already exists")
    }
  }

  // ---- repair ----

  /** Paimon's `repairCatalog`: every database directory (`<db>.db`) of the warehouse. */
  override def repairCatalog(): Unit = new FileSystemCatalog(io, warehouse).listDatabases().foreach(repairDatabase)

  /**
   * Paimon's `repairDatabase`: the database registered (at `<warehouse>/<db>.db`) if the metastore
   * lacks it, then every table whose directory in the database's location holds schema files.
   */
  override def repairDatabase(db: String): Unit = {
    if (!databaseExists(db)) createDatabase(db, Map.empty)
    val location = databaseLocation(existingDatabase(db))
    if (io.isDirectory(location)) FileSystemCatalog.tablesIn(io, location).foreach(repairTable(db, _))
  }

  /**
   * Paimon's `repairTable`: the latest schema in the table's directory (where the metastore records
   * it, else in its database's) registered if the metastore lacks the table, or written over a
   * stale record; with `metastore.partitioned-table`, the partitions holding files registered too.
   */
  override def repairTable(db: String, table: String): Unit = {
    checkName("table", table)
    val existing = record(db, table)
    existing.filterNot(HmsTables.isPaimon).foreach(r => throw notPaimon(db, table, r))
    val location = existing.flatMap(HmsTables.location(_, settings)).map(new Path(_))
      .getOrElse(new Path(databaseLocation(existingDatabase(db)), table))
    val tableHooks = hooks(db, table, location)
    val files = try FileStoreTable.load(io, location, tableHooks) catch {
      case _: TableNotFoundException => throw new TableNotFoundException(s"$db.$table", s"repair: table $db.$table has " +
        s"no schema files at $location")
    }
    records.invalidate(db, table)
    if (existing.isDefined) tableHooks.updateRecord(files.schema, Set.empty)
    else {
      val hms = HmsTables.newTable(db, table, files.schema, location.toString, settings.externalTables, settings, currentUser)
      clients.run(s"create table $db.$table")(_.createTable(hms))
    }
    if (HmsTables.metastorePartitioned(files.schema)) {
      val store = files.newManifestStore()
      val live = files.snapshotManager.latest().toSeq.flatMap(s => store.liveFiles(store.dataManifests(s)))
      tableHooks.addPartitions(files, live.map(_.partition.toSeq).toSet)
    }
  }
}

object MetastoreCatalog {
  private val BatchSize = 300

  def notPaimon(db: String, table: String, record: Table): MetastoreException =
    new MetastoreException(s"$db.$table", s"table $db.$table is not a Paimon table: the metastore records a " +
      s"${record.getTableType} with input format ${Option(record.getSd).map(_.getInputFormat).orNull}; read it through " +
      "spark_catalog (Spark's Hive support) instead")

  /** Metastore names are lower-case: Paimon refuses others rather than have them change on the way. */
  def checkName(kind: String, name: String): String = {
    FileSystemCatalog.checkName(kind, name)
    if (name != name.toLowerCase) {
      throw new InvalidIdentifierException(name, s"invalid $kind name '$name': a Hive metastore lower-cases names, " +
        s"so Paimon's Hive catalog takes lower-case names only (use '${name.toLowerCase}')")
    }
    name
  }

  private def columnNames(fields: Seq[DataField]): Seq[String] = fields.flatMap { f =>
    def nested(t: DataType): Seq[String] = t match {
      case r: RowType => columnNames(r.fields)
      case a: ArrayType => nested(a.element)
      case m: MapType => nested(m.key) ++ nested(m.value)
      case m: MultisetType => nested(m.element)
      case _: AtomicType => Nil
    }
    f.name +: nested(f.dataType)
  }

  private def currentUser: String =
    Option(UserGroupInformation.getCurrentUser).map(_.getShortUserName).getOrElse(System.getProperty("user.name"))
}
