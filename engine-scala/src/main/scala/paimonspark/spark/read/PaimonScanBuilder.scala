package paimonspark.spark.read

import org.apache.spark.sql.connector.read.Scan

import paimonspark.spark.SparkSchemas
import paimonspark.table.FileStoreTable

/**
 * Builds the batch scan of a table: merge on read for primary-key tables, files as they are
 * otherwise. A primary-key table with deletion vectors is read as Paimon reads it: the files above
 * level 0 as they are, each without the rows its vector marks; level-0 files show once compacted.
 * Its `$ro` reads the top level alone, as Paimon's does.
 */
final class PaimonScanBuilder(table: FileStoreTable, readOptimized: Boolean = false)
    extends PushDownScanBuilder(table.schema, SparkSchemas.sparkSchema(table.schema)) {

  override def build(): Scan =
    if (table.isPrimaryKeyTable && readOptimized) {
      // The top level holds one version per key and no retractions: its files read as they are
      // (less the rows their deletion vectors mark, where the table has them).
      val top = table.options.numLevels - 1
      new PaimonScan(table, required, pushed.toSeq, predicate, _.level == top)
    } else if (table.isPrimaryKeyTable && table.options.deletionVectors) {
      new PaimonScan(table, required, pushed.toSeq, predicate, _.level > 0)
    } else if (table.isPrimaryKeyTable) new PrimaryKeyScan(table, required, pushed.toSeq, predicate)
    else new PaimonScan(table, required, pushed.toSeq, predicate)
}
