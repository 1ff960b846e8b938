package paimonspark.spark.read

import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types.StructType

import paimonspark.format.metadata.Snapshot
import paimonspark.spark.SparkSchemas
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.changes.{CommitChanges, SnapshotDiff}

/** Builds a [[ChangeScan]] over the commits `plan` picks for the pushed filters. */
final class ChangeScanBuilder(table: FileStoreTable, plan: Option[Predicate] => Seq[CommitChanges], added: ChangeColumns)
    extends PushDownScanBuilder(table.schema, ChangeScanBuilder.schema(table, added)) {

  override def build(): Scan = {
    val filter = predicate
    new ChangeScan(table, () => plan(filter), added, required, pushed.toSeq)
  }
}

/** Builds a [[DiffScan]] of two states, its buckets planned for the pushed filters. */
final class DiffScanBuilder(table: FileStoreTable, start: Option[Snapshot], end: Option[Snapshot], added: ChangeColumns)
    extends PushDownScanBuilder(table.schema, ChangeScanBuilder.schema(table, added)) {

  override def build(): Scan = {
    val filter = predicate
    new DiffScan(table, () => SnapshotDiff.plan(table, start, end, filter), added, required)
  }
}

object ChangeScanBuilder {
  /** The table's columns with the added ones around them. */
  def schema(table: FileStoreTable, added: ChangeColumns): StructType =
    StructType(added.leading ++ SparkSchemas.sparkSchema(table.schema).fields ++ added.trailing)
}
