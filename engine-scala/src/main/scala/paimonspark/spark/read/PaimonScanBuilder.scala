package paimonspark.spark.read

import org.apache.spark.sql.connector.read.Scan

import paimonspark.spark.SparkSchemas
import paimonspark.table.FileStoreTable

/** Builds the batch scan of a table: merge on read for primary-key tables, files as they are otherwise. */
final class PaimonScanBuilder(table: FileStoreTable, readOptimized: Boolean = false)
    extends PushDownScanBuilder(table.schema, SparkSchemas.sparkSchema(table.schema)) {

  override def build(): Scan =
    if (table.isPrimaryKeyTable && readOptimized) {
      // The top level holds one version per key and no retractions: its files read as they are.
      val top = table.options.numLevels - 1
      new PaimonScan(table, required, pushed.toSeq, predicate, _.level == top)
    } else if (table.isPrimaryKeyTable) new PrimaryKeyScan(table, required, pushed.toSeq, predicate)
    else new PaimonScan(table, required, pushed.toSeq, predicate)
}
