package paimonspark.spark.system

import org.apache.spark.sql.connector.catalog.Table

import paimonspark.InvalidIdentifierException
import paimonspark.spark.SparkTable
import paimonspark.table.FileStoreTable
import paimonspark.table.scan.TimeTravel

/** The system tables of a table (`t$snapshots`, ...), by Paimon's names. */
object SystemTables {
  private val all: Map[String, (FileStoreTable, String) => Table] = Map(
    "snapshots" -> (new SnapshotsTable(_, _)),
    "schemas" -> (new SchemasTable(_, _)),
    "options" -> (new OptionsTable(_, _)),
    "tags" -> (new TagsTable(_, _)),
    "branches" -> (new BranchesTable(_, _)),
    "consumers" -> (new ConsumersTable(_, _)),
    "files" -> (new FilesTable(_, _)),
    "file_key_ranges" -> (new FileKeyRangesTable(_, _)),
    "manifests" -> (new ManifestsTable(_, _)),
    "partitions" -> (new PartitionsTable(_, _, perBucket = false)),
    "buckets" -> (new PartitionsTable(_, _, perBucket = true)),
    "statistics" -> (new StatisticsTable(_, _)),
    "table_indexes" -> (new TableIndexesTable(_, _)),
    "aggregation_fields" -> (new AggregationFieldsTable(_, _)),
    "audit_log" -> (new AuditLogTable(_, _)),
    "binlog" -> (new BinlogTable(_, _)),
    "row_tracking" -> (new RowTrackingTable(_, _)),
    "ro" -> ((t, n) => new SparkTable(t, n, readOptimized = true)))

  def names: Seq[String] = all.keys.toSeq.sorted

  /** A system table over a branch; those that describe one snapshot describe the one `point` names. */
  def load(kind: String, table: FileStoreTable, point: Option[TimeTravel], displayName: String): Table = {
    val build = all.getOrElse(kind, throw new InvalidIdentifierException(kind,
      s"$displayName: '$kind' is not a system table; there are ${names.mkString(", ")}"))
    build(point.fold(table)(TimeTravel.travel(table, _)), displayName)
  }
}
