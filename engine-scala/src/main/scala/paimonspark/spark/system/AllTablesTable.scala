package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.catalog.Catalog

/**
 * `sys.tables`: one row per table of the catalog, with its type, whether it is partitioned and keyed,
 * and the audit fields Paimon reads from its options (`owner`, `createdAt`, ...: a REST catalog's,
 * null unless set). The snapshot statistics come from a REST catalog's `loadSnapshot` alone: on a
 * filesystem or Hive catalog Paimon leaves them null, and so do we. All columns are nullable.
 */
final class AllTablesTable(catalog: Catalog, displayName: String) extends CatalogSystemTable(displayName) {
  import Cells._

  override val fields: StructType = StructType(CatalogSystemTables.tableColumns ++ Seq(
    StructField("table_type", StringType),
    StructField("partitioned", BooleanType),
    StructField("primary_key", BooleanType),
    StructField("owner", StringType),
    StructField("created_at", LongType),
    StructField("created_by", StringType),
    StructField("updated_at", LongType),
    StructField("updated_by", StringType),
    StructField("record_count", LongType),
    StructField("file_size_in_bytes", LongType),
    StructField("file_count", LongType),
    StructField("last_file_creation_time", LongType)))

  override def rows(): Seq[InternalRow] = CatalogSystemTables.allTables(catalog).map { e =>
    val schema = e.table.schema
    val options = schema.options
    // As Java's Long.parseLong: an audit time that is not a number fails the read.
    def time(key: String) = long(options.get(key).map(_.toLong))
    InternalRow(str(e.database), str(e.name), str(options.getOrElse("type", "table")), schema.partitionKeys.nonEmpty,
      schema.primaryKeys.nonEmpty, str(options.get("owner")), time("createdAt"), str(options.get("createdBy")),
      time("updatedAt"), str(options.get("updatedBy")), null, null, null, null)
  }
}
