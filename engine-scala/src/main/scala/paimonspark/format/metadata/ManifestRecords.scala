package paimonspark.format.metadata

import java.nio.ByteBuffer
import java.time.{LocalDateTime, ZoneOffset}

import paimonspark.format.row.BinaryRow

/**
 * Min, max and null counts of some columns (`SimpleStats`). Min and max are serialized BinaryRows
 * over the columns made nullable; a null inside them means "unknown", as does a null count.
 */
final case class SimpleStats(minValues: Array[Byte], maxValues: Array[Byte], nullCounts: Option[Seq[Option[Long]]])

object SimpleStats {
  /** No statistics at all: empty rows and no counts (`_VALUE_STATS_COLS = []`). */
  val Empty: SimpleStats = SimpleStats(BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, Some(Nil))
}

/** `_KIND` of a manifest entry. */
object FileKind {
  val Add: Int = 0
  val Delete: Int = 1
}

/** One data or changelog file (`DataFileMeta`, fields of Paimon 1.4.2). */
final case class DataFileMeta(
    fileName: String,
    fileSize: Long,
    rowCount: Long,
    minKey: Array[Byte],
    maxKey: Array[Byte],
    keyStats: SimpleStats,
    valueStats: SimpleStats,
    minSequenceNumber: Long,
    maxSequenceNumber: Long,
    schemaId: Long,
    level: Int,
    extraFiles: Seq[String],
    creationTimeMillis: Option[Long],
    deleteRowCount: Option[Long],
    embeddedIndex: Option[Array[Byte]],
    fileSource: Option[Int],
    valueStatsCols: Option[Seq[String]],
    externalPath: Option[String],
    firstRowId: Option[Long],
    writeCols: Option[Seq[String]])

object DataFileMeta {
  /** `_CREATION_TIME` as Java writes it: the local wall-clock time stored as if it were UTC. */
  def creationTimeMillis(): Long = LocalDateTime.now().toInstant(ZoneOffset.UTC).toEpochMilli
}

object FileSource {
  val Append: Int = 0
  val Compact: Int = 1
}

/**
 * What makes two manifest entries refer to the same file: a DELETE must repeat its ADD's identifier
 * exactly. Byte arrays are wrapped so that equality compares content.
 */
final case class FileIdentifier(
    partition: ByteBuffer,
    bucket: Int,
    level: Int,
    fileName: String,
    extraFiles: Seq[String],
    embeddedIndex: Option[ByteBuffer],
    externalPath: Option[String])

object FileIdentifier {
  def of(partition: Array[Byte], bucket: Int, file: DataFileMeta): FileIdentifier = FileIdentifier(
    ByteBuffer.wrap(partition), bucket, file.level, file.fileName, file.extraFiles,
    file.embeddedIndex.map(ByteBuffer.wrap), file.externalPath)
}

/** One row of a manifest file. */
final case class ManifestEntry(kind: Int, partition: Array[Byte], bucket: Int, totalBuckets: Int, file: DataFileMeta) {
  def identifier: FileIdentifier = FileIdentifier.of(partition, bucket, file)

  def partitionKey: ByteBuffer = ByteBuffer.wrap(partition)

  def asDelete: ManifestEntry = copy(kind = FileKind.Delete)
}

/** One row of a manifest list: a manifest file and what it holds. */
final case class ManifestFileMeta(
    fileName: String,
    fileSize: Long,
    numAddedFiles: Long,
    numDeletedFiles: Long,
    partitionStats: SimpleStats,
    schemaId: Long,
    minBucket: Option[Int],
    maxBucket: Option[Int],
    minLevel: Option[Int],
    maxLevel: Option[Int],
    minRowId: Option[Long],
    maxRowId: Option[Long])
