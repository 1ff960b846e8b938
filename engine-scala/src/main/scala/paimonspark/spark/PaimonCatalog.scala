package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.analysis.{NamespaceAlreadyExistsException, NoSuchNamespaceException,
  NoSuchTableException, NonEmptyNamespaceException, TableAlreadyExistsException}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.{InvalidIdentifierException, InvalidOptionException, StorageException, TableNotFoundException,
  UnsupportedFeatureException}
import paimonspark.catalog.{Catalog, FileSystemCatalog}
import paimonspark.catalog.hive.{MetastoreCatalog, MetastoreSettings}
import paimonspark.catalog.jdbc.{JdbcCatalog, JdbcSettings}
import paimonspark.catalog.rest.{RestCatalog, RestSettings}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.TableSchema
import paimonspark.fs.FileIO
import paimonspark.spark.catalog.{PaimonFunctions, SessionFileIO, TableChanges, TableLoading, TableName, WithPaimonCatalog}
import paimonspark.spark.procedures.{PaimonProcedures, ProcedureTableName}
import paimonspark.table.FileStoreTable
import paimonspark.spark.system.CatalogSystemTables

/**
 * The Spark catalog over a Paimon filesystem warehouse, registered as
 * `spark.sql.catalog.<name>=paimonspark.spark.PaimonCatalog` with `.warehouse=<path>`.
 */
class PaimonCatalog extends TableLoading with SupportsNamespaces with PaimonFunctions with PaimonProcedures
    with WithPaimonCatalog {
  private var catalogName: String = _
  private var catalog: Catalog = _
  /** The catalog's `table-default.<option>` values: options of every table created here that does not set its own. */
  private var tableDefaults: Map[String, String] = Map.empty
  /** The options the catalog was configured with, which `sys.catalog_options` lists. */
  private var catalogOptions: Map[String, String] = Map.empty

  override def name(): String = catalogName

  override def paimonCatalog: Catalog = catalog

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    catalog = PaimonCatalog.open(name, options)
    catalogOptions = options.asCaseSensitiveMap().asScala.toMap
    tableDefaults = catalogOptions.collect {
      case (k, v) if k.startsWith(PaimonCatalog.TableDefault) => k.stripPrefix(PaimonCatalog.TableDefault) -> v
    }
    if (!catalog.databaseExists(PaimonCatalog.DefaultDatabase)) {
      catalog.createDatabase(PaimonCatalog.DefaultDatabase, Map.empty)
    }
  }

  override def defaultNamespace(): Array[String] = Array(PaimonCatalog.DefaultDatabase)

  /** Column defaults as Paimon keeps them ([[ColumnDefaults]]); Spark refuses DEFAULT without this. */
  override def capabilities(): util.Set[TableCatalogCapability] =
    util.Set.of(TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE)

  private def database(namespace: Array[String]): String = namespace match {
    case Array(db) => db
    case other => throw new InvalidIdentifierException(other.mkString("."),
      s"catalog $catalogName has one level of databases; '${other.mkString(".")}' is not a database name")
  }

  private def parts(ident: Identifier): (String, String) = (database(ident.namespace()), ident.name())

  private val Sys = CatalogSystemTables.Database

  /** A database that may be changed, which `sys` is not: it holds the catalog's system tables, as in Paimon. */
  private def writable(db: String): String =
    if (db == Sys) throw new InvalidIdentifierException(db, s"catalog $catalogName: database $Sys holds the catalog's " +
      "system tables; it cannot be created, changed or dropped, nor hold tables")
    else db

  // ---- namespaces ----

  // Without `sys`, as Paimon's SparkCatalog lists them (its catalogs list the databases they store).
  override def listNamespaces(): Array[Array[String]] = catalog.listDatabases().map(Array(_)).toArray

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] =
    if (namespace.isEmpty) listNamespaces()
    else if (namespaceExists(namespace)) Array.empty
    else throw new NoSuchNamespaceException(namespace)

  override def namespaceExists(namespace: Array[String]): Boolean =
    namespace.length == 1 && (namespace.head == Sys || catalog.databaseExists(namespace.head))

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = {
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
    if (namespace.head == Sys) util.Map.of() else catalog.loadDatabase(namespace.head).asProperties.asJava
  }

  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit = {
    val db = writable(database(namespace))
    if (catalog.databaseExists(db)) throw new NamespaceAlreadyExistsException(namespace)
    catalog.createDatabase(db, metadata.asScala.toMap)
  }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit = {
    val db = writable(database(namespace))
    if (!catalog.databaseExists(db)) throw new NoSuchNamespaceException(namespace)
    catalog.alterDatabase(db, changes.collect { case s: NamespaceChange.SetProperty => s.property() -> s.value() }.toMap,
      changes.collect { case r: NamespaceChange.RemoveProperty => r.property() }.toSet)
  }

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = {
    val db = writable(database(namespace))
    if (!cascade && catalog.databaseExists(db) && catalog.listTables(db).nonEmpty) {
      throw new NonEmptyNamespaceException(namespace)
    }
    catalog.dropDatabase(db, cascade)
  }

  // ---- tables ----

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
    val names = if (namespace.head == Sys) CatalogSystemTables.names else catalog.listTables(namespace.head)
    names.map(t => Identifier.of(namespace, t)).toArray
  }

  override def tableExists(ident: Identifier): Boolean = {
    val (db, t) = parts(ident)
    if (db == Sys) CatalogSystemTables.names.contains(t.toLowerCase) else catalog.tableExists(db, TableName.parse(t).table)
  }

  override protected def open(ident: Identifier, travel: Option[paimonspark.table.scan.TimeTravel],
      options: CaseInsensitiveStringMap): Table =
    if (database(ident.namespace()) == Sys) openSystem(ident, travel) else openTable(ident, travel, options)

  /** A table of `sys`, which describes the catalog as it is: it has no history to travel. */
  private def openSystem(ident: Identifier, travel: Option[paimonspark.table.scan.TimeTravel]): Table = {
    val table = CatalogSystemTables.load(ident.name(), catalog, catalogOptions, s"$catalogName.$Sys.${ident.name()}")
      .getOrElse(throw new NoSuchTableException((ident.namespace() :+ ident.name()).toIndexedSeq))
    if (travel.isDefined) throw new UnsupportedFeatureException(s"${table.name()} describes the catalog as it is now; " +
      "it has no versions to read AS OF")
    table
  }

  private def openTable(ident: Identifier, travel: Option[paimonspark.table.scan.TimeTravel],
      options: CaseInsensitiveStringMap): Table = {
    val (db, t) = parts(ident)
    val name = TableName.parse(t)
    // A name the catalog holds something else under (a Hive table of another format) says so.
    val store = try catalog.loadTable(db, name.table) catch {
      case _: TableNotFoundException => throw new NoSuchTableException((ident.namespace() :+ ident.name()).toIndexedSeq)
    }
    SparkTable.open(store, name, s"$catalogName.$db.$t", travel, options)
  }

  override protected def catalogTables(): Seq[(String, String)] =
    catalog.listDatabases().flatMap(db => catalog.listTables(db).map(db -> _))

  override protected def procedureTable(name: String): FileStoreTable = {
    loadTable(ProcedureTableName.resolve(name, catalogName, defaultNamespace())) match {
      case t: SparkTable => t.store
      case _ => throw new InvalidIdentifierException(name, s"'$name' is a system table; procedures take a table or a branch")
    }
  }

  override def createTable(ident: Identifier, info: TableInfo): Table =
    createTable(ident, info.columns(), info.partitions(), info.properties())

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    create(ident, properties.asScala.toMap)(SparkSchemas.create(_, columns.toSeq, partitions.toSeq, _))

  /**
   * CREATE TABLE ... LIKE a Paimon table copies its columns (with their comments and defaults), partitioning,
   * primary key, options and comment; the statement's TBLPROPERTIES override them. LIKE another table takes the
   * columns and partitioning Spark gives.
   */
  override def createTableLike(ident: Identifier, info: TableInfo, source: Table): Table = source match {
    case s: SparkTable =>
      val copied = s.properties().asScala.toMap -- Seq(TableCatalog.PROP_LOCATION, TableCatalog.PROP_IS_MANAGED_LOCATION)
      create(ident, copied ++ info.properties().asScala)(
        SparkSchemas.fromFields(_, s.store.schema.fields, s.store.schema.partitionKeys, _))
    case _ => createTable(ident, info)
  }

  /** Creates a table of the schema `schema` makes of the table's name and its properties (with the catalog's defaults). */
  private def create(ident: Identifier, properties: Map[String, String])(
      schema: (String, Map[String, String]) => TableSchema): Table = {
    val (db, t) = parts(ident)
    writable(db)
    if (!catalog.databaseExists(db)) throw new NoSuchNamespaceException(ident.namespace())
    if (catalog.tableExists(db, t)) throw new TableAlreadyExistsException((ident.namespace() :+ ident.name()).toIndexedSeq)
    val props = tableDefaults ++ properties
    val external = Seq("external", "EXTERNAL").flatMap(props.get).exists(_.trim.equalsIgnoreCase("true"))
    new SparkTable(catalog.createTable(db, t, schema(s"$db.$t", props), props.get(TableCatalog.PROP_LOCATION), external),
      s"$catalogName.$db.$t")
  }

  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    createTable(ident, schema.fields.map(f => Column.create(f.name, f.dataType, f.nullable, f.getComment().orNull, null)),
      partitions, properties)

  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val table = loadTable(ident) match {
      case t: SparkTable if t.store.paths.branch == TablePaths.MainBranch => t
      case _ => throw new UnsupportedFeatureException(s"ALTER TABLE ${ident.name()}: only a table itself can be altered")
    }
    val (db, t) = parts(ident)
    val altered = catalog.alterTable(db, TableName.parse(t).table, table.store,
      TableChanges.toPaimon(table.name(), table.store.schema, changes), table.name())
    new SparkTable(altered, table.name())
  }

  override def dropTable(ident: Identifier): Boolean = {
    val (db, t) = parts(ident)
    catalog.dropTable(writable(db), t)
  }

  override def purgeTable(ident: Identifier): Boolean = dropTable(ident)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = {
    val (db, t) = parts(oldIdent)
    Seq(db, database(newIdent.namespace())).foreach(writable)
    if (!catalog.tableExists(db, t)) throw new NoSuchTableException((oldIdent.namespace() :+ oldIdent.name()).toIndexedSeq)
    val (newDb, newT) = parts(newIdent)
    if (catalog.tableExists(newDb, newT)) {
      throw new TableAlreadyExistsException((newIdent.namespace() :+ newIdent.name()).toIndexedSeq)
    }
    catalog.renameTable(db, t, newDb, newT)
  }
}

object PaimonCatalog {
  val DefaultDatabase = "default"
  val TableDefault = "table-default."

  /**
   * The catalog the options ask for: Paimon's filesystem catalog over `warehouse`, or with
   * `metastore=hive` its Hive catalog over the metastore at `uri`.
   */
  def open(name: String, options: CaseInsensitiveStringMap): Catalog = {
    val io = SessionFileIO(options)
    def warehouse(location: String) = usableWarehouse(name, location, io)
    Option(options.get(MetastoreSettings.Metastore)).map(_.trim.toLowerCase).getOrElse("filesystem") match {
      case "filesystem" =>
        val location = Option(options.get("warehouse")).getOrElse(
          throw new InvalidOptionException(s"spark.sql.catalog.$name.warehouse",
            s"catalog $name needs the option spark.sql.catalog.$name.warehouse"))
        new FileSystemCatalog(io, warehouse(location))
      case "hive" =>
        val settings = MetastoreSettings(name, options.asCaseSensitiveMap().asScala.toMap)
        new MetastoreCatalog(settings, io, warehouse(settings.warehouse))
      case "rest" => new RestCatalog(RestSettings(name, options.asCaseSensitiveMap().asScala.toMap), io)
      case "jdbc" =>
        val settings = JdbcSettings(name, options.asCaseSensitiveMap().asScala.toMap)
        new JdbcCatalog(settings, io, warehouse(settings.warehouse))
      case other => throw new InvalidOptionException(s"spark.sql.catalog.$name.metastore",
        s"catalog $name: metastore '$other' is not one this engine has; use filesystem (the default), hive, jdbc or rest")
    }
  }

  /**
   * The warehouse as given, once Hadoop has a filesystem for it and the store answers: a location
   * that cannot be used is refused here, naming it, rather than turned into some other directory or
   * found out at the first write.
   */
  def usableWarehouse(catalog: String, warehouse: String, io: FileIO): Path = {
    val option = s"spark.sql.catalog.$catalog.warehouse"
    def refuse(why: String) =
      throw new InvalidOptionException(option, s"catalog $catalog: warehouse '$warehouse' cannot be used: $why")
    def rootMessage(e: Throwable) = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toSeq.last.getMessage
    val path = try new Path(warehouse) catch { case e: IllegalArgumentException => refuse(e.getMessage) }
    // Hadoop says "No FileSystem for scheme" for a scheme it does not know, and fails to load the
    // class for one it knows without its jar (s3a: without hadoop-aws).
    val fs = try io.fileSystem(path) catch {
      case e: Exception =>
        refuse(s"${rootMessage(e)}; the filesystem of '${path.toUri.getScheme}:' needs its jar on the classpath " +
          "(hadoop-aws for s3a: and s3:, gcs-connector for gs:, hadoop-azure for abfs:, which " +
          "configure_spark_with_paimon(..., s3=True, gcs=True or azure=True) adds)")
    }
    // A bucket that does not exist, credentials the store refuses, an endpoint that does not answer.
    try fs.exists(path) catch {
      case e: java.io.IOException =>
        throw new StorageException(warehouse, s"catalog $catalog: warehouse '$warehouse' cannot be reached: " +
          s"${e.getClass.getSimpleName}: ${rootMessage(e)}" + storeHint(path), e)
    }
    path
  }

  private def storeHint(path: Path): String = Option(path.toUri.getScheme).map(_.toLowerCase) match {
    case Some("s3" | "s3a") => "; check the bucket, the endpoint, the region and the credentials (spark.hadoop.fs.s3a.* " +
      "settings, or the catalog options s3.endpoint, s3.access-key, s3.secret-key, s3.path-style-access)"
    case Some("gs") => "; check the bucket, the project and the credentials (spark.hadoop.fs.gs.* settings)"
    case Some("abfs" | "abfss") => "; check the container, the account and its credentials (spark.hadoop.fs.azure.* settings)"
    case _ => ""
  }
}
