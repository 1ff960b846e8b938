package paimonspark.spark.read

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.spark.SparkSchemas
import paimonspark.table.FileStoreTable

/**
 * Collects the columns and filters Spark pushes. Filters only select files; all of them are
 * also evaluated by Spark after the scan, so stats can never drop a matching row.
 */
final class PaimonScanBuilder(table: FileStoreTable, readOptimized: Boolean = false)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  private var required: StructType = SparkSchemas.sparkSchema(table.schema)
  private var pushed: Array[Filter] = Array.empty
  private val converter = new FilterConverter(table.schema)

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    pushed = filters.filter(f => converter.convert(f).isDefined)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  override def build(): Scan = {
    val predicate = pushed.toSeq.flatMap(converter.convert).reduceOption(paimonspark.table.Predicate.And)
    if (table.isPrimaryKeyTable && readOptimized) {
      // The top level holds one version per key and no retractions: its files read as they are.
      val top = table.options.numLevels - 1
      new PaimonScan(table, required, pushed.toSeq, predicate, _.level == top)
    } else if (table.isPrimaryKeyTable) new PrimaryKeyScan(table, required, pushed.toSeq, predicate)
    else new PaimonScan(table, required, pushed.toSeq, predicate)
  }
}
