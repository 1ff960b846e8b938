package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/**
 * `t$snapshots`: one row per retained snapshot, oldest first. A filter on `snapshot_id`, or an
 * `ORDER BY snapshot_id LIMIT n`, reads only the snapshot files it needs.
 */
final class SnapshotsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("snapshot_id", LongType, nullable = false),
    StructField("schema_id", LongType, nullable = false),
    StructField("commit_user", StringType, nullable = false),
    StructField("commit_identifier", LongType, nullable = false),
    StructField("commit_kind", StringType, nullable = false),
    StructField("commit_time", TimestampNTZType, nullable = false),
    StructField("base_manifest_list", StringType, nullable = false),
    StructField("delta_manifest_list", StringType, nullable = false),
    StructField("changelog_manifest_list", StringType),
    StructField("total_record_count", LongType),
    StructField("delta_record_count", LongType),
    StructField("changelog_record_count", LongType),
    StructField("watermark", LongType),
    StructField("next_row_id", LongType)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val snapshots = at.snapshotManager
    val listed = hints.longs("snapshot_id").map(_.toSeq.sorted).getOrElse(snapshots.listIds())
    // ORDER BY snapshot_id LIMIT n (the latest snapshots, say) reads n snapshot files, not all of them.
    val ids = hints.topBy("snapshot_id").fold(listed) { case (descending, n) =>
      if (descending) listed.takeRight(n) else listed.take(n)
    }
    ids.flatMap(snapshots.readIfExists).map { s =>
      InternalRow(s.id, s.schemaId, str(s.commitUser), s.commitIdentifier, str(s.commitKind), localTime(s.timeMillis),
        str(s.baseManifestList), str(s.deltaManifestList), str(s.changelogManifestList), s.totalRecordCount,
        s.deltaRecordCount, long(s.changelogRecordCount), long(s.watermark), long(s.nextRowId))
    }
  }
}
