package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/**
 * `t$table_indexes`: the index files of a snapshot, one row each, with Paimon's columns: the dynamic
 * buckets' `HASH` files and the `DELETION_VECTORS` files with each vector's range (`dv_ranges`: the
 * data file, offset, length and cardinality). Paimon 1.4's seven columns: the global-index columns of
 * later versions (row ranges, index fields) are not among them.
 */
final class TableIndexesTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  private val range = StructType(Seq(StructField("f0", StringType, nullable = false),
    StructField("f1", IntegerType, nullable = false), StructField("f2", IntegerType, nullable = false),
    StructField("_CARDINALITY", LongType)))

  override val fields: StructType = StructType(Seq(
    StructField("partition", StringType),
    StructField("bucket", IntegerType, nullable = false),
    StructField("index_type", StringType, nullable = false),
    StructField("file_name", StringType, nullable = false),
    StructField("file_size", LongType, nullable = false),
    StructField("row_count", LongType, nullable = false),
    StructField("dv_ranges", ArrayType(range))))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val types = at.schema.partitionRowType
    at.newManifestStore().indexFiles(at.currentSnapshot()).map { e =>
      val ranges = if (e.deletionVectors.isEmpty) null else new GenericArrayData(e.deletionVectors.map(v =>
        InternalRow(str(v.dataFile), v.offset, v.length, long(v.cardinality))).toArray[Any])
      // Paimon casts the partition row to text here, an unpartitioned table's as `{}`.
      InternalRow(str(MetadataText.row(e.partition, types).getOrElse("{}")), e.bucket, str(e.indexType), str(e.fileName), e.fileSize,
        e.rowCount, ranges)
    }
  }
}
