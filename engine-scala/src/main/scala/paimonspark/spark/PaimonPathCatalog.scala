package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NoSuchTableException, TableAlreadyExistsException}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.{InvalidIdentifierException, UnsupportedFeatureException}
import paimonspark.fs.FileIO
import paimonspark.spark.catalog.{PaimonFunctions, SessionFileIO, TableChanges, TableLoading, TableName}
import paimonspark.spark.procedures.PaimonProcedures
import paimonspark.table.FileStoreTable
import paimonspark.table.schema.SchemaChanges

/**
 * A catalog whose table names are paths (`paimon_path.`/data/t``). Path-based DataFrame writes go
 * through it, so that every save mode gets catalog semantics: create, append, overwrite. Its last
 * path element is a table name as Paimon spells it, so `/data/t$snapshots` and `/data/t$branch_b`
 * address a system table or a branch of the table at `/data/t`. Procedures take the path as their
 * table: `CALL paimon_path.sys.compact(table => '/data/t')`.
 */
class PaimonPathCatalog extends TableLoading with PaimonFunctions with PaimonProcedures {
  private var catalogName: String = _

  override def name(): String = catalogName

  private var catalogOptions: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty()

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    catalogOptions = options
  }

  private def io: FileIO = SessionFileIO(catalogOptions)

  /** The path qualified (`/t` as `file:/t`), so that file paths read back the same however it was written. */
  private def location(ident: Identifier): Path = {
    val path = new Path(ident.name())
    io.fileSystem(path).makeQualified(path)
  }

  override def listTables(namespace: Array[String]): Array[Identifier] = Array.empty

  override def tableExists(ident: Identifier): Boolean = FileStoreTable.exists(io, location(ident))

  /** The table and the name within its directory, when a table is there; a path that is a table is one
   * whatever its name. */
  private def resolve(ident: Identifier): Option[(FileStoreTable, TableName)] = {
    val fileIO = io
    val path = location(ident)
    FileStoreTable.loadIfExists(fileIO, path).map(_ -> TableName(path.getName, None, None)).orElse {
      if (!path.getName.contains("$")) None
      else {
        val name = TableName.parse(path.getName)
        FileStoreTable.loadIfExists(fileIO, new Path(path.getParent, name.table)).map(_ -> name)
      }
    }
  }

  override protected def catalogTables(): Seq[(String, String)] = throw new UnsupportedFeatureException(
    s"catalog $catalogName addresses tables by path and has no list of tables; name one table")

  override protected def procedureTable(name: String): FileStoreTable = loadTable(Identifier.of(Array.empty, name)) match {
    case t: SparkTable => t.store
    case _ => throw new InvalidIdentifierException(name, s"'$name' is a system table; procedures take a table or a branch")
  }

  override protected def open(ident: Identifier, travel: Option[paimonspark.table.scan.TimeTravel],
      options: CaseInsensitiveStringMap): Table = {
    val (table, name) = resolve(ident).getOrElse(throw new NoSuchTableException(Seq(ident.name())))
    SparkTable.open(table, name, ident.name(), travel, options)
  }

  /** Column defaults as Paimon keeps them ([[ColumnDefaults]]); Spark refuses DEFAULT without this. */
  override def capabilities(): util.Set[TableCatalogCapability] =
    util.Set.of(TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE)

  override def createTable(ident: Identifier, info: TableInfo): Table =
    createTable(ident, info.columns(), info.partitions(), info.properties())

  override def createTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val path = location(ident)
    if (properties.containsKey(TableCatalog.PROP_LOCATION)) {
      throw new UnsupportedFeatureException(s"table ${ident.name()}: LOCATION is not supported here; the table's name is its location")
    }
    val schema = SparkSchemas.create(path.toString, columns.toSeq, partitions.toSeq, properties.asScala.toMap)
    val table = FileStoreTable.create(io, path, schema).getOrElse(throw new TableAlreadyExistsException(Seq(ident.name())))
    new SparkTable(table, ident.name())
  }

  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    createTable(ident, schema.fields.map(f => Column.create(f.name, f.dataType, f.nullable)), partitions, properties)

  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val store = FileStoreTable.load(io, location(ident))
    new SparkTable(SchemaChanges.alter(store, ident.name(), TableChanges.toPaimon(ident.name(), store.schema, changes)), ident.name())
  }

  /** Only used by Spark to undo a failed create-and-write. */
  override def dropTable(ident: Identifier): Boolean = tableExists(ident) && io.delete(location(ident), recursive = true)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new UnsupportedFeatureException("path-based tables cannot be renamed")
}

object PaimonPathCatalog {
  val Name = "paimon_path"

  /** The catalog identifier of a path, registering the catalog in the session on first use. */
  def identifier(spark: SparkSession, path: String): String = {
    val key = s"spark.sql.catalog.$Name"
    if (!spark.conf.getOption(key).contains(classOf[PaimonPathCatalog].getName)) {
      spark.conf.set(key, classOf[PaimonPathCatalog].getName)
    }
    s"$Name.`${path.replace("`", "``")}`"
  }
}
