package paimonspark.spark.system

import java.time.{Instant, LocalDateTime, ZoneOffset}

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._

import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, TableSchema}
import paimonspark.table.FileStoreTable

/** `t$files`: the live data files with their value stats, sequence numbers, origin and columns. */
final class FilesTable(table: FileStoreTable, displayName: String) extends DataFilesTable(table, displayName, Seq(
    StructField("null_value_counts", StringType, nullable = false),
    StructField("min_value_stats", StringType, nullable = false),
    StructField("max_value_stats", StringType, nullable = false),
    StructField("min_sequence_number", LongType),
    StructField("max_sequence_number", LongType),
    StructField("creation_time", TimestampNTZType),
    StructField("deleteRowCount", LongType),
    StructField("file_source", StringType),
    StructField("first_row_id", LongType),
    StructField("write_cols", ArrayType(StringType)))) {
  import Cells._

  override protected def ownCells(f: DataFileMeta, fileSchema: TableSchema): Seq[Any] = {
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
    Seq(str(nulls), str(stat(_._1)), str(stat(_._2)), f.minSequenceNumber, f.maxSequenceNumber,
      // Stored as the writer's wall-clock time read as UTC, as Java writes it.
      f.creationTimeMillis.map(m => Long.box(localTime(LocalDateTime.ofInstant(Instant.ofEpochMilli(m), ZoneOffset.UTC)))).orNull,
      long(f.deleteRowCount), str(f.fileSource.map(s => if (s == FileSource.Compact) "COMPACT" else "APPEND")),
      long(f.firstRowId), f.writeCols.map(c => new GenericArrayData(c.map(str).toArray[Any])).orNull)
  }
}
