package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.catalog.Catalog

/**
 * `sys.all_table_options`: every option of every table, as Paimon's catalog loads them: the latest
 * schema's options and `path`, the table's location, which the catalog adds.
 */
final class AllTableOptionsTable(catalog: Catalog, displayName: String) extends CatalogSystemTable(displayName) {
  import Cells._

  override val fields: StructType = StructType(CatalogSystemTables.tableColumns ++ Seq(
    StructField("key", StringType),
    StructField("value", StringType)))

  override def rows(): Seq[InternalRow] = CatalogSystemTables.allTables(catalog).flatMap { e =>
    val options = e.table.schema.options + ("path" -> e.table.location.toString)
    options.toSeq.sortBy(_._1).map { case (k, v) => InternalRow(str(e.database), str(e.name), str(k), str(v)) }
  }
}
