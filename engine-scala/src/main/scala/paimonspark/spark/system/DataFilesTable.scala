package paimonspark.spark.system

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.format.metadata.{DataFileMeta, TableSchema}
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.scan.ScanPlanner

/**
 * The live data files of the current (or time-travelled) snapshot, from manifests only, one row each:
 * the columns `$files` and `$file_key_ranges` share (where the file is, its size, level and key range),
 * then `ownFields`. Filters on `partition` (as `{v1, v2}`) and `bucket` narrow what is listed.
 */
abstract class DataFilesTable(table: FileStoreTable, displayName: String, ownFields: Seq[StructField])
    extends SystemTable(table, displayName) {
  import Cells._

  /** The values of `ownFields` for file `f`, written under `fileSchema`. */
  protected def ownCells(f: DataFileMeta, fileSchema: TableSchema): Seq[Any]

  override val fields: StructType = StructType(Seq(
    StructField("partition", StringType),
    StructField("bucket", IntegerType, nullable = false),
    StructField("file_path", StringType, nullable = false),
    StructField("file_format", StringType, nullable = false),
    StructField("schema_id", LongType, nullable = false),
    StructField("level", IntegerType, nullable = false),
    StructField("record_count", LongType, nullable = false),
    StructField("file_size_in_bytes", LongType, nullable = false),
    StructField("min_key", StringType),
    StructField("max_key", StringType)) ++ ownFields)

  private val partitionTypes = table.schema.partitionRowType
  private val schemas = scala.collection.mutable.Map(table.schema.id -> table.schema)

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val buckets = hints.ints("bucket")
    val partitions = hints.strings("partition")
    val splits = ScanPlanner.forMetadata(at).plan(at.currentSnapshot(), None)
    splits.filter(s => buckets.forall(_.contains(s.bucket))).flatMap { split =>
      val partition = MetadataText.row(split.partitionBytes, partitionTypes)
      if (partitions.exists(p => !partition.exists(p.contains))) Nil
      else split.files.map { f =>
        val fileSchema = schemas.getOrElseUpdate(f.schemaId, at.schemaManager.read(f.schemaId))
        val keyTypes = Try(KeyLayout.of(at.name, fileSchema).trimmedKeys.map(k => fileSchema.field(k).dataType))
          .getOrElse(Nil)
        InternalRow.fromSeq(Seq[Any](str(partition), split.bucket,
          str(at.dataFilePath(split.partitionBytes, split.bucket, f).toString),
          str(f.fileName.substring(f.fileName.lastIndexOf('.') + 1)), f.schemaId, f.level, f.rowCount, f.fileSize,
          str(MetadataText.key(f.minKey, keyTypes)), str(MetadataText.key(f.maxKey, keyTypes))) ++ ownCells(f, fileSchema))
      }
    }
  }
}
