package paimonspark.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.spark.SparkTable
import paimonspark.spark.read.{ChangeColumns, ChangeScan, ChangeScanBuilder, PrimaryKeyScan, PushDownScanBuilder}
import paimonspark.table.FileStoreTable
import paimonspark.table.changes.CommitChanges
import paimonspark.table.scan.{DataSplit, ScanPlanner}

/**
 * `t$audit_log`: the table's rows led by their kind (`rowkind`: +I, -U, +U, -D). Over a range of
 * changes (`incremental-between`, ...) it reads the rows those commits wrote; otherwise the rows of
 * the current (or time-travelled) snapshot, merged, with the retractions merging left in place.
 */
final class AuditLogTable(table: FileStoreTable, displayName: String) extends Table with SupportsRead {
  override def name(): String = displayName
  override def schema(): StructType = ChangeScanBuilder.schema(table, ChangeColumns.AuditLog)
  override def capabilities(): util.Set[TableCapability] =
    Set(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    lazy val at = SparkTable.withDynamicOptions(table, options)
    SparkTable.streamable(table, options, ChangeColumns.AuditLog,
      SparkTable.changeScan(at, options, ChangeColumns.AuditLog).getOrElse(new SnapshotScanBuilder(at)))
  }

  /**
   * The rows of one snapshot with their kinds; an append table's rows are all inserts. A
   * primary-key table with deletion vectors is read as its batch reads are, files above level 0
   * less their marked rows, each row with the kind it was written with.
   */
  private final class SnapshotScanBuilder(at: FileStoreTable) extends PushDownScanBuilder(at.schema, schema()) {
    override def build(): Scan =
      if (at.isPrimaryKeyTable && !at.options.deletionVectors) {
        new PrimaryKeyScan(at, required, pushed.toSeq, predicate, rowKind = true)
      } else {
        val (snapshot, filter) = (at.currentSnapshot(), predicate)
        val visible = (split: DataSplit) => if (at.isPrimaryKeyTable) split.copy(files = split.files.filter(_.level > 0))
          else split
        new ChangeScan(at, () => snapshot.toSeq.map(s => CommitChanges(s,
          new ScanPlanner(at, appliesDeletionVectors = true).plan(Some(s), filter).map(visible).filter(_.files.nonEmpty))),
          ChangeColumns.AuditLog, required, pushed.toSeq)
      }
  }
}
