package paimonspark.table.write

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.format.files.DataFiles
import paimonspark.table.FileStoreTable

/** Which buckets an append writer's rows go to, and where each (partition, bucket)'s sequence numbers start. */
sealed trait AppendBuckets extends Serializable
object AppendBuckets {
  /** Bucket-unaware (bucket 0 of -1); each partition's rows numbered from `firstSequence`. */
  final case class Unaware(firstSequence: Long = 0L) extends AppendBuckets
  /** The table's fixed buckets by its bucket function, each numbered on from what it holds (`restored`). */
  final case class Fixed(restored: WriteRestore) extends AppendBuckets
  /** Every row into one bucket of `total` from `firstSequence`: a compaction's output. */
  final case class One(bucket: Int, total: Int, firstSequence: Long) extends AppendBuckets
}

/**
 * Writes rows of an append table (no primary key) into data files (`file.format`), one (partition,
 * bucket) at a time, rolling to a new file at `target-file-size`. Rows are expected grouped by
 * partition and bucket (the write asks Spark to sort by them); one seen again simply gets another
 * file. Within a bucket, rows are numbered in the order they come, which is the order Paimon's
 * bucketed append keeps. Returns the ADD entries for the driver to commit. Compaction writes with
 * it too, as `fileSource` Compact.
 */
final class AppendWriter(table: FileStoreTable, fileSource: Int = FileSource.Append,
    buckets: AppendBuckets = AppendBuckets.Unaware()) {
  private val schema = table.schema
  private val options = table.options
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val partitionProjection: Option[UnsafeProjection] =
    if (schema.partitionKeys.isEmpty) None
    else Some(ColumnProjection(schema, schema.partitionKeys))
  private val spec = options.fileWriteSpec
  private val namer = new FileNamer(options.dataFilePrefix, spec.suffix)
  private val targetSize = options.targetFileSize(primaryKey = false)
  private val written = ArrayBuffer.empty[ManifestEntry]
  private val paths = ArrayBuffer.empty[Path]
  private val (totalBuckets, bucketer) = buckets match {
    case AppendBuckets.Unaware(_) => (-1, None)
    case AppendBuckets.Fixed(_) => (options.bucket, Some(new RowBucketer(table, Bucketing.Fixed(options.bucket))))
    case AppendBuckets.One(_, total, _) => (total, None)
  }
  private val fixedBucket = buckets match {
    case AppendBuckets.One(b, _, _) => b
    case _ => 0
  }
  // The next sequence number of each (partition, bucket) this writer has written to.
  private val nextSequences = mutable.HashMap.empty[String, Long]

  private var partition: UnsafeRow = _
  private var partitionBytes: Array[Byte] = BinaryRow.EmptySerialized
  private var partitionDir: String = ""
  private var bucket = -1
  private var file: DataFileWriter = _
  private var filePath: Path = _
  private var nextSequence = 0L

  def write(row: InternalRow): Unit = {
    partitionProjection.foreach { projection =>
      val p = projection(row)
      if (partition == null || p != partition) switchPartition(p.copy())
    }
    val b = bucketer.fold(fixedBucket)(_.bucketOf(row))
    if (b != bucket) switchBucket(b)
    if (file == null) openFile()
    file.write(row)
    if ((file.rowCount & 1023) == 0 && file.estimatedSize >= targetSize) closeFile()
  }

  /** Closes the open file and returns every file written. */
  def finish(): Seq[ManifestEntry] = {
    closeFile()
    written.toSeq
  }

  /** Deletes every file this writer created. */
  def abort(): Unit = {
    if (file != null) file.abort()
    file = null
    paths.foreach(p => table.io.delete(p, recursive = false))
  }

  private def switchPartition(p: UnsafeRow): Unit = {
    closeFile()
    partition = p
    partitionBytes = BinaryRow.serialize(partitionTypes, p)
    partitionDir = table.partitionPathOf(p)
    bucket = -1
  }

  private def switchBucket(b: Int): Unit = {
    closeFile()
    bucket = b
    val key = PrimaryKeyWriter.sequenceKey(partitionBytes, b)
    nextSequence = nextSequences.getOrElse(key, buckets match {
      case AppendBuckets.Unaware(first) => first
      case AppendBuckets.Fixed(restored) =>
        restored.requireBucketCount(table, partitionBytes, totalBuckets)
        restored.nextSequences.getOrElse(key, 0L)
      case AppendBuckets.One(_, _, first) => first
    })
  }

  private def openFile(): Unit = {
    filePath = table.paths.dataFile(partitionDir, bucket, namer.next())
    paths += filePath
    file = DataFiles.open(table.io, filePath, schema.fields, spec)
  }

  private def closeFile(): Unit = if (file != null) {
    val stats = file.close()
    val (rows, length) = (file.rowCount, file.length)
    file = null
    val (valueStats, statsCols) = ValueStats.of(schema.fields, stats, options.statsMode, options.fieldStatsModes)
    val meta = DataFileMeta(
      fileName = filePath.getName,
      fileSize = length,
      rowCount = rows,
      minKey = BinaryRow.EmptySerialized,
      maxKey = BinaryRow.EmptySerialized,
      keyStats = SimpleStats.Empty,
      valueStats = valueStats,
      minSequenceNumber = nextSequence,
      maxSequenceNumber = nextSequence + rows - 1,
      schemaId = schema.id,
      level = 0,
      extraFiles = Nil,
      creationTimeMillis = Some(DataFileMeta.creationTimeMillis()),
      deleteRowCount = Some(0L),
      embeddedIndex = None,
      fileSource = Some(fileSource),
      valueStatsCols = statsCols,
      externalPath = None,
      firstRowId = None,
      writeCols = None)
    nextSequence += rows
    nextSequences(PrimaryKeyWriter.sequenceKey(partitionBytes, bucket)) = nextSequence
    written += ManifestEntry(FileKind.Add, partitionBytes, bucket, totalBuckets, meta)
  }
}
