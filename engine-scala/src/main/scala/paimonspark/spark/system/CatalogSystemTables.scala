package paimonspark.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.TableNotFoundException
import paimonspark.catalog.Catalog
import paimonspark.table.FileStoreTable

/**
 * The tables of Paimon's catalog-wide database `sys` (`SELECT * FROM paimon.sys.tables`): every
 * table's metadata, partitions and options, and the catalog's own options.
 */
object CatalogSystemTables {
  val Database = "sys"

  /** In Paimon's order (`SystemTableLoader.GLOBAL_SYSTEM_TABLES`), which `SHOW TABLES IN sys` keeps. */
  val names: Seq[String] = Seq("tables", "partitions", "all_table_options", "catalog_options")

  /** The table `name` (in any case, as Paimon takes it), if `sys` has one of that name. */
  def load(name: String, catalog: Catalog, catalogOptions: Map[String, String], displayName: String): Option[Table] =
    name.toLowerCase match {
      case "tables" => Some(new AllTablesTable(catalog, displayName))
      case "partitions" => Some(new AllPartitionsTable(catalog, displayName))
      case "all_table_options" => Some(new AllTableOptionsTable(catalog, displayName))
      case "catalog_options" => Some(new CatalogOptionsTable(catalogOptions, displayName))
      case _ => None
    }

  /** The columns naming a table, which lead each table of `sys` that describes tables. */
  val tableColumns: Seq[StructField] = Seq(StructField("database_name", StringType), StructField("table_name", StringType))

  /** A table of the catalog: its database, name and files. */
  final case class CatalogEntry(database: String, name: String, table: FileStoreTable)

  /** Every table of every database, by name; one dropped while listed is left out, as Paimon leaves it. */
  def allTables(catalog: Catalog): Seq[CatalogEntry] =
    for {
      db <- catalog.listDatabases()
      name <- catalog.listTables(db)
      table <- try Some(catalog.loadTable(db, name)) catch { case _: TableNotFoundException => None }
    } yield CatalogEntry(db, name, table)
}

/**
 * A table of `sys`: rows computed from the catalog at each scan, on the driver, with what Spark
 * pushes applied as for a table's own system tables.
 */
abstract class CatalogSystemTable(displayName: String) extends Table with SupportsRead {
  /** Paimon's column names and types. */
  def fields: StructType
  def rows(): Seq[InternalRow]

  override def name(): String = displayName
  override def schema(): StructType = fields
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new SystemScanBuilder(fields, _ => rows())
}
