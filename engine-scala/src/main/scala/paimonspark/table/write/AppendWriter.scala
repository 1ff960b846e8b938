package paimonspark.table.write

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}

import paimonspark.format._
import paimonspark.table.FileStoreTable

/**
 * Writes rows of an append table (no primary key, bucket-unaware) into data files (`file.format`), one
 * partition at a time, rolling to a new file at `target-file-size`. Rows are expected grouped by
 * partition (the write asks Spark to sort by partition columns); a partition seen again simply
 * gets another file. Returns the ADD entries for the driver to commit. Compaction writes with it
 * too, as `fileSource` Compact and numbering rows on from `firstSequence`.
 */
final class AppendWriter(table: FileStoreTable, fileSource: Int = FileSource.Append, firstSequence: Long = 0L) {
  private val schema = table.schema
  private val options = table.options
  private val fileSchema = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = true))
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val partitionProjection: Option[UnsafeProjection] =
    if (schema.partitionKeys.isEmpty) None
    else Some(UnsafeProjection.create(schema.partitionKeys.map { k =>
      val i = schema.fieldNames.indexOf(k)
      BoundReference(i, fileSchema(i).dataType, nullable = true)
    }))
  private val spec = options.fileWriteSpec
  private val namer = new FileNamer(options.dataFilePrefix, spec.suffix)
  private val targetSize = options.targetFileSize(primaryKey = false)
  private val written = ArrayBuffer.empty[ManifestEntry]
  private val paths = ArrayBuffer.empty[Path]

  private var partition: UnsafeRow = _
  private var partitionBytes: Array[Byte] = BinaryRow.EmptySerialized
  private var partitionDir: String = ""
  private var file: DataFileWriter = _
  private var filePath: Path = _
  private var nextSequence = firstSequence

  def write(row: InternalRow): Unit = {
    partitionProjection.foreach { projection =>
      val p = projection(row)
      if (partition == null || p != partition) switchPartition(p.copy())
    }
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
  }

  private def openFile(): Unit = {
    filePath = table.paths.dataFile(partitionDir, 0, namer.next())
    paths += filePath
    file = DataFileWriter.open(table.io, filePath, schema.fields, spec)
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
    written += ManifestEntry(FileKind.Add, partitionBytes, bucket = 0, totalBuckets = -1, meta)
  }
}
