package paimonspark.spark.system

import java.time.{Instant, LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.format.metadata.DataFileMeta
import paimonspark.table.FileStoreTable
import paimonspark.table.scan.ScanPlanner

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
    // As Paimon's: `$buckets` prints the partition row (`{v1, v2}`), `$partitions` its spec (`k1=v1/k2=v2`).
    val text: Array[Byte] => Option[String] =
      if (perBucket) MetadataText.row(_, types)
      else MetadataText.spec(_, at.schema.partitionKeys, types, at.options.partitionDefaultName)
    PartitionsTable.groups(at, perBucket, hints.ints("bucket")).map(g => (text(g.partition), g))
      .filter { case (p, _) => wanted.forall(w => p.exists(w.contains)) }
      .sortBy { case (p, g) => (p.getOrElse(""), g.bucket) }
      .map { case (p, g) =>
        val counts = Seq[Any](g.recordCount, g.fileSize, g.files.size.toLong, g.lastCreation.map(t => Long.box(localTime(t))).orNull)
        InternalRow.fromSeq(
          (str(p) +: (if (perBucket) Seq[Any](g.bucket) else Nil)) ++ counts ++ (if (perBucket) Nil else Seq.fill(4)(null)))
      }
  }
}

object PartitionsTable {
  /** The live files of one partition (serialized), or of one of its buckets. */
  final case class FileGroup(partition: Array[Byte], bucket: Int, files: Seq[DataFileMeta]) {
    def recordCount: Long = files.map(_.rowCount).sum
    def fileSize: Long = files.map(_.fileSize).sum
    /** When the newest file was written: its writer's wall clock, which Java stores as if it were UTC. */
    def lastCreation: Option[LocalDateTime] = files.flatMap(_.creationTimeMillis).maxOption
      .map(m => LocalDateTime.ofInstant(Instant.ofEpochMilli(m), ZoneOffset.UTC))
  }

  /** The live files of `at`'s snapshot by partition, and by bucket too when `perBucket`, of `buckets` if given. */
  def groups(at: FileStoreTable, perBucket: Boolean, buckets: Option[Set[Int]] = None): Seq[FileGroup] =
    ScanPlanner.forMetadata(at).plan(at.currentSnapshot(), None)
      .filter(s => buckets.forall(_.contains(s.bucket)))
      .groupBy(s => (s.partitionBytes.toSeq, if (perBucket) s.bucket else 0)).toSeq
      .map { case ((partition, bucket), splits) => FileGroup(partition.toArray, bucket, splits.flatMap(_.files)) }
}
