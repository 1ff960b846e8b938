package paimonspark.lsm

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.format.files.DataFiles
import paimonspark.format.parquet.DictionaryVerdicts
import paimonspark.fs.FileIO

/** What every data file of a table is written with; `kind` names the table's data or changelog files. */
final case class DataFileSettings(
    io: FileIO,
    formats: LevelFormats,
    targetFileSize: Long,
    statsMode: StatsMode,
    fieldStatsModes: Map[String, StatsMode],
    schemaId: Long,
    filePrefix: String,
    kind: String)

/**
 * Writes one sorted run of a bucket into primary-key data files of one level, rolling to a new
 * file at the target size. Input rows are merged versions in key order, laid out as (sequence,
 * kind, table columns, anything after is ignored); each file gets the true first and last key,
 * key and value statistics, its sequence range and its count of retractions.
 */
final class KeyValueFileWriter(
    settings: DataFileSettings,
    bucketDir: Path,
    fields: Seq[DataField],
    keyIndices: Seq[Int],
    level: Int,
    fileSource: Int) {

  private val keyFields = keyIndices.map(fields)
  private val keyTypes = keyFields.map(_.dataType)
  private val fileFields = KeyValueFields.fileFields(keyFields, fields)
  private val fileSchema = SparkTypes.physical(SparkTypes.toSparkStruct(fileFields, withFieldIds = true))
  private val inputOrdinals = (keyIndices.map(_ + 2) ++ Seq(KeyValue.SequenceOrdinal, KeyValue.KindOrdinal) ++
    fields.indices.map(_ + 2)).toArray
  // A view: the file writer reads each field once, so a copy would only write every field twice.
  private val fileRow = ProjectingInternalRow(fileSchema, inputOrdinals.toIndexedSeq)
  private val toKey = UnsafeProjection.create(keyIndices.zipWithIndex.map { case (k, j) =>
    BoundReference(k + 2, fileSchema(j).dataType, nullable = false)
  })
  // Within one file a key occurs once: a single key column and the sequence numbers are unique.
  private val uniqueColumns = KeyValueFields.SequenceNumber.name +:
    (if (keyFields.size == 1) Seq(fileFields.head.name, keyFields.head.name) else Nil)
  private val spec = settings.formats.level(level)
  // A level's files of one schema share their columns' data: what one dropped the next drops too.
  private val verdicts = DictionaryVerdicts.of(DictionaryVerdicts.kind(settings.kind, settings.schemaId, level))
  private val namer = new FileNamer(settings.filePrefix, spec.suffix)
  private val written = ArrayBuffer.empty[DataFileMeta]
  private val paths = ArrayBuffer.empty[Path]

  private var file: DataFileWriter = _
  private var path: Path = _
  private var minKey: Array[Byte] = _
  // The last key written, for the file's max key: a key of one integral column as its number, any
  // other key copied (into a row backed by a byte array from the start: copyFrom only works on such rows).
  private val integralKey = if (keyIndices.size > 1) None
    else IntegralKey.of(fileSchema, Seq(0)).map(_.copy(ordinal = keyIndices.head + 2))
  private var lastNumber = 0L
  private val lastKey = { val r = new UnsafeRow(keyIndices.size); r.pointTo(new Array[Byte](64), 0); r }
  private var minSequence = Long.MaxValue
  private var maxSequence = Long.MinValue
  private var retractions = 0L

  def write(kv: InternalRow): Unit = {
    if (file == null) open()
    fileRow.project(kv)
    file.write(fileRow)
    noteFirstKey(kv)
    noteLastKey(kv)
    noteVersion(KeyValue.sequence(kv), KeyValue.kind(kv))
    rollIfFull()
  }

  /**
   * Writes the first `rows` rows of `columns` (one per field of the input rows), as [[write]] would
   * write them one by one: the files are the same, cut at the same rows, but each column is written
   * in one go between the checks of the file's size.
   */
  def write(columns: Array[ColumnVector], rows: Int): Unit = {
    val fileColumns = inputOrdinals.map(columns(_))
    val view = new ColumnarBatch(columns, rows)
    val sequences = columns(KeyValue.SequenceOrdinal)
    val kinds = columns(KeyValue.KindOrdinal)
    var from = 0
    while (from < rows) {
      if (file == null) open()
      val n = math.min(rows - from, 1024 - (file.rowCount & 1023).toInt)
      file.writeColumns(fileColumns, from, n)
      // The view's row is one object moved from row to row: each is used before the next is asked for.
      noteFirstKey(view.getRow(from))
      noteLastKey(view.getRow(from + n - 1))
      var r = from
      while (r < from + n) { noteVersion(sequences.getLong(r), kinds.getByte(r)); r += 1 }
      from += n
      rollIfFull()
    }
  }

  /** The key of `row` as the file's first, if it is the file's first row. */
  private def noteFirstKey(row: InternalRow): Unit =
    if (minKey == null) minKey = BinaryRow.serialize(keyTypes, toKey(row))

  /** The key of `row` as the file's last so far. */
  private def noteLastKey(row: InternalRow): Unit = integralKey match {
    case Some(k) => lastNumber = k.of(row)
    case None => lastKey.copyFrom(toKey(row))
  }

  private def noteVersion(sequence: Long, kind: Byte): Unit = {
    if (sequence < minSequence) minSequence = sequence
    if (sequence > maxSequence) maxSequence = sequence
    if (KeyValue.retracts(kind)) retractions += 1
  }

  /** Closes the file at the target size, checked every 1,024 rows. */
  private def rollIfFull(): Unit =
    if ((file.rowCount & 1023) == 0 && file.estimatedSize >= settings.targetFileSize) close()

  /** Closes the open file and returns every file written, in key order. */
  def finish(): Seq[DataFileMeta] = {
    close()
    written.toSeq
  }

  /** Deletes every file this writer created. */
  def abort(): Unit = {
    if (file != null) file.abort()
    file = null
    paths.foreach(p => settings.io.delete(p, recursive = false))
  }

  private def open(): Unit = {
    path = new Path(bucketDir, namer.next())
    paths += path
    file = DataFiles.open(settings.io, path, fileFields, spec, uniqueColumns, Some(verdicts))
  }

  private def close(): Unit = if (file != null) {
    val stats = file.close()
    val (rows, length) = (file.rowCount, file.length)
    file = null
    // Key stats keep one entry per key column whatever the mode: readers index them by key position.
    val keyMode = if (settings.statsMode == StatsMode.NoStats) StatsMode.Counts else settings.statsMode
    val (keyStats, _) = ValueStats.of(fileFields.take(keyFields.size), stats, keyMode)
    val (valueStats, statsCols) = ValueStats.of(fields, stats, settings.statsMode, settings.fieldStatsModes)
    written += DataFileMeta(
      fileName = path.getName,
      fileSize = length,
      rowCount = rows,
      minKey = minKey,
      maxKey = BinaryRow.serialize(keyTypes, integralKey.fold[InternalRow](lastKey)(k =>
        InternalRow(if (k.wide) lastNumber else lastNumber.toInt))),
      keyStats = keyStats,
      valueStats = valueStats,
      minSequenceNumber = minSequence,
      maxSequenceNumber = maxSequence,
      schemaId = settings.schemaId,
      level = level,
      extraFiles = Nil,
      creationTimeMillis = Some(DataFileMeta.creationTimeMillis()),
      deleteRowCount = Some(retractions),
      embeddedIndex = None,
      fileSource = Some(fileSource),
      valueStatsCols = statsCols,
      externalPath = None,
      firstRowId = None,
      writeCols = None)
    minKey = null
    minSequence = Long.MaxValue
    maxSequence = Long.MinValue
    retractions = 0L
  }
}
