package paimonspark.spark.system

import java.time.{Instant, LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable
import paimonspark.table.scan.{DataSplit, ScanPlanner}

/**
 * `t$partitions` (one row per partition) and `t$buckets` (one per partition and bucket): record
 * counts, sizes and file counts of the live files, and when a file of it was last written.
 * Counts are of physical rows, before any merge, as in Paimon.
 */
final class PartitionsTable(table: FileStoreTable, displayName: String, perBucket: Boolean)
    extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(
    Seq(StructField("partition", StringType)) ++
    (if (perBucket) Seq(StructField("bucket", IntegerType, nullable = false)) else Nil) ++
    Seq(StructField("record_count", LongType, nullable = false),
      StructField("file_size_in_bytes", LongType, nullable = false),
      StructField("file_count", LongType, nullable = false),
      StructField("last_update_time", TimestampNTZType)) ++
    (if (perBucket) Nil else Seq(StructField("created_at", TimestampNTZType), StructField("created_by", StringType),
      StructField("updated_by", StringType), StructField("options", StringType))))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val types = at.schema.partitionRowType
    val wanted = hints.strings("partition")
    val buckets = hints.ints("bucket")
    val splits = ScanPlanner.forMetadata(at).plan(at.currentSnapshot(), None)
      .filter(s => buckets.forall(_.contains(s.bucket)))
    // As Paimon's: `$buckets` prints the partition row (`{v1, v2}`), `$partitions` its spec (`k1=v1/k2=v2`).
    val text: Array[Byte] => Option[String] =
      if (perBucket) MetadataText.row(_, types)
      else MetadataText.spec(_, at.schema.partitionKeys, types, at.options.partitionDefaultName)
    val groups = splits.groupBy(s => (text(s.partitionBytes), if (perBucket) s.bucket else 0))
    groups.toSeq.filter { case ((p, _), _) => wanted.forall(w => p.exists(w.contains)) }
      .sortBy { case ((p, b), _) => (p.getOrElse(""), b) }
      .map { case ((p, b), group) => row(p, b, group) }
  }

  private def row(partition: Option[String], bucket: Int, splits: Seq[DataSplit]): InternalRow = {
    val files = splits.flatMap(_.files)
    // Creation times are the writer's wall clock stored as UTC, as Java writes them.
    val updated = files.flatMap(_.creationTimeMillis).maxOption
      .map(m => Long.box(localTime(LocalDateTime.ofInstant(Instant.ofEpochMilli(m), ZoneOffset.UTC)))).orNull
    val counts = Seq[Any](files.map(_.rowCount).sum, files.map(_.fileSize).sum, files.size.toLong, updated)
    InternalRow.fromSeq(
      (str(partition) +: (if (perBucket) Seq[Any](bucket) else Nil)) ++ counts ++ (if (perBucket) Nil else Seq.fill(4)(null)))
  }
}
