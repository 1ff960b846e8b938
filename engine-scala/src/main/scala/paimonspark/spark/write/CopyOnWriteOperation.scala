package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperation, Write, WriteBuilder}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

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
 */
final class CopyOnWriteOperation(table: SparkTable, command: Command) extends RowLevelOperation {
  private val files = new StatementScan(table.store, s"$command of ${table.name()}")

  override def command(): Command = command

  override def description(): String = s"copy-on-write $command of ${table.name()}"

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = files.builder

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write = {
      val read = files.scan
      new PaimonWrite(table, Some(() => OverwriteScope.Files(read.plannedFiles)), info.queryId())
    }
  }

  /** Rows are grouped by their file: Spark's run-time group filter then narrows the scan to the files it changes. */
  override def requiredMetadataAttributes(): Array[NamedReference] = Array(FilePathColumn.reference)
}
