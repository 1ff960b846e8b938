package paimonspark.spark.system

import java.time.{Instant, LocalDateTime, ZoneOffset}

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._

import paimonspark.format.{BinaryRow, DataFileMeta, FileSource}
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.scan.{DataSplit, ScanPlanner}

/**
 * `t$files`: the live data files of the current (or time-travelled) snapshot, from manifests only.
 * Filters on `partition` (as `{v1, v2}`) and `bucket` narrow what is listed.
 */
final class FilesTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

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
    StructField("max_key", StringType),
    StructField("null_value_counts", StringType, nullable = false),
    StructField("min_value_stats", StringType, nullable = false),
    StructField("max_value_stats", StringType, nullable = false),
    StructField("min_sequence_number", LongType),
    StructField("max_sequence_number", LongType),
    StructField("creation_time", TimestampNTZType),
    StructField("deleteRowCount", LongType),
    StructField("file_source", StringType),
    StructField("first_row_id", LongType),
    StructField("write_cols", ArrayType(StringType))))

  private val partitionTypes = table.schema.partitionRowType
  private val schemas = scala.collection.mutable.Map(table.schema.id -> table.schema)

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val buckets = hints.ints("bucket")
    val partitions = hints.strings("partition")
    val splits = ScanPlanner.forMetadata(at).plan(at.currentSnapshot(), None)
    splits.filter(s => buckets.forall(_.contains(s.bucket))).flatMap { split =>
      val partition = MetadataText.row(split.partitionBytes, partitionTypes)
      if (partitions.exists(p => !partition.exists(p.contains))) Nil
      else split.files.map(f => row(at, split, partition, f))
    }
  }

  private def row(at: FileStoreTable, split: DataSplit, partition: Option[String], f: DataFileMeta): InternalRow = {
    val fileSchema = schemas.getOrElseUpdate(f.schemaId, at.schemaManager.read(f.schemaId))
    val keyTypes = Try(KeyLayout.of(at.name, fileSchema).trimmedKeys.map(k => fileSchema.field(k).dataType))
      .getOrElse(Nil)
    val statsFields = f.valueStatsCols.fold(fileSchema.fields)(cols => cols.flatMap(c => fileSchema.fields.find(_.name == c)))
    val types = statsFields.map(_.dataType.withNullable(true))
    val bounds = Try((BinaryRow.deserialize(types, f.valueStats.minValues), BinaryRow.deserialize(types, f.valueStats.maxValues)))
      .toOption.filter(_ => statsFields.nonEmpty && f.valueStats.minValues.length > 8)
    val names = fileSchema.fields.map(_.name)
    def stat(pick: ((InternalRow, InternalRow)) => InternalRow): String = MetadataText.map(names.map { n =>
      val i = statsFields.indexWhere(_.name == n)
      n -> bounds.filter(_ => i >= 0).map(b => MetadataText.values(pick(b), statsFields.map(_.dataType))(i)).getOrElse("null")
    })
    val nulls = MetadataText.map(names.map { n =>
      val i = statsFields.indexWhere(_.name == n)
      n -> f.valueStats.nullCounts.flatMap(_.lift(i)).flatten.map(_.toString).getOrElse("null")
    })
    InternalRow(str(partition), split.bucket, str(at.dataFilePath(split.partitionBytes, split.bucket, f).toString),
      str(f.fileName.substring(f.fileName.lastIndexOf('.') + 1)), f.schemaId, f.level, f.rowCount, f.fileSize,
      str(MetadataText.key(f.minKey, keyTypes)), str(MetadataText.key(f.maxKey, keyTypes)), str(nulls), str(stat(_._1)),
      str(stat(_._2)), f.minSequenceNumber, f.maxSequenceNumber,
      // Stored as the writer's wall-clock time read as UTC, as Java writes it.
      f.creationTimeMillis.map(m => Long.box(localTime(LocalDateTime.ofInstant(Instant.ofEpochMilli(m), ZoneOffset.UTC)))).orNull,
      long(f.deleteRowCount), str(f.fileSource.map(s => if (s == FileSource.Compact) "COMPACT" else "APPEND")),
      long(f.firstRowId), f.writeCols.map(c => new GenericArrayData(c.map(str).toArray[Any])).orNull)
  }
}
