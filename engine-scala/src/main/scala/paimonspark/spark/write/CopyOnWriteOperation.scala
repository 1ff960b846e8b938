package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperation, Write, WriteBuilder}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.SparkTable
import paimonspark.spark.read.FilePathColumn
import paimonspark.table.write.OverwriteScope

/**
 * DELETE, UPDATE and MERGE INTO on an append table, copy-on-write: Spark reads the files that may
 * hold a row the statement changes (statistics skip the others, and Spark's run-time group filter
 * drops those where no row matches), and what it writes back of them replaces exactly those files
 * in one OVERWRITE commit. Filters only choose files: a row group
 * skipped inside a chosen file would be missing from what replaces it. A file another commit
 * removed meanwhile fails the commit ([[OverwriteScope.Files]]).
 *
 * Also a DELETE on a primary-key table whose merge engine cannot take -D rows (first-row, and
 * aggregation or partial-update without `remove-record-on-delete`), as Paimon does it: only where
 * each key of the buckets read is in one file once, merged, so the files' rows are the table's
 * (`TableScan.plansOneVersionPerKey`); the rows kept are written again as new versions, and
 * compacted at once.
 */
final class CopyOnWriteOperation(table: SparkTable, command: Command) extends RowLevelOperation {
  private val files = new StatementScan(table.store, s"$command of ${table.name()}")

  override def command(): Command = command

  override def description(): String = s"copy-on-write $command of ${table.name()}"

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = files.builder

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write = {
      val read = files.scan
      val store = table.store
      if (store.isPrimaryKeyTable && !read.plansOneVersionPerKey) {
        throw new UnsupportedFeatureException(s"table ${table.name()}: $command rewrites the files of the buckets " +
          "it changes, which must be fully compacted first (its merge engine takes no -D rows): Only compacted " +
          "table can generate touched files, please use 'COMPACT' procedure first.")
      }
      // The rows kept become level-0 files, which a first-row table's reads (like Paimon's) only see once
      // compacted: the rewrite compacts what it wrote even where the table is `write-only`.
      val target = if (store.isPrimaryKeyTable) new SparkTable(store.withDynamicOptions(Map("write-only" -> "false")),
        table.name()) else table
      new PaimonWrite(target, Some(() => OverwriteScope.Files(read.plannedFiles)), info.queryId())
    }
  }

  /**
   * Rows are grouped by their file: Spark's run-time group filter then narrows the scan to the files
   * it changes. A primary-key table's reads offer no file column (they merge files), so there every
   * file that statistics keep is rewritten.
   */
  override def requiredMetadataAttributes(): Array[NamedReference] =
    if (table.store.isPrimaryKeyTable) Array.empty else Array(FilePathColumn.reference)
}
