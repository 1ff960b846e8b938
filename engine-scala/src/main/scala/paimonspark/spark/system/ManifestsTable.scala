package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$manifests`: the data manifests (base, then delta) of the current or time-travelled snapshot. */
final class ManifestsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("file_name", StringType, nullable = false),
    StructField("file_size", LongType, nullable = false),
    StructField("num_added_files", LongType, nullable = false),
    StructField("num_deleted_files", LongType, nullable = false),
    StructField("schema_id", LongType, nullable = false),
    StructField("min_partition_stats", StringType),
    StructField("max_partition_stats", StringType),
    StructField("min_row_id", LongType),
    StructField("max_row_id", LongType)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val types = at.schema.partitionRowType
    at.currentSnapshot().toSeq.flatMap(at.newManifestStore().dataManifests).map { m =>
      InternalRow(str(m.fileName), m.fileSize, m.numAddedFiles, m.numDeletedFiles, m.schemaId,
        str(MetadataText.row(m.partitionStats.minValues, types)), str(MetadataText.row(m.partitionStats.maxValues, types)),
        long(m.minRowId), long(m.maxRowId))
    }
  }
}
