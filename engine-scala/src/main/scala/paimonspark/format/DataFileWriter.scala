package paimonspark.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

/** One data file being written, in its format: rows of its schema in, its length and statistics out. */
trait DataFileWriter {
  def write(row: InternalRow): Unit

  /**
   * Writes rows `from` until `from + count` of `columns` (one per column of the file's schema), as
   * `write` would write them one by one; formats that encode a column at a time override it.
   */
  def writeColumns(columns: Array[ColumnVector], from: Int, count: Int): Unit = {
    val batch = new ColumnarBatch(columns, from + count)
    var i = from
    while (i < from + count) { write(batch.getRow(i)); i += 1 }
  }

  def rowCount: Long

  /** Bytes written plus bytes buffered: what file rolling compares with the target size. */
  def estimatedSize: Long

  /** Closes the file and gives its column statistics. */
  def close(): FileStats

  /** The file's length in bytes, once closed. */
  def length: Long

  /** Closes the writer after a failure; the file is left for cleanup by the caller. */
  def abort(): Unit
}

/**
 * How data files are written: `format` (Paimon's `file.format` names), its codec
 * (`file.compression`), the zstd level, and the options Paimon passes to the format's writer
 * (`orc.*`, `parquet.*` table options, as given).
 */
final case class FileWriteSpec(format: String, compression: String, zstdLevel: Int, formatOptions: Map[String, String]) {
  def suffix: String = s".$format"
}

/**
 * How each level's data files are written (`file.format.per.level`, `file.compression.per.level`
 * over `file.format` and `file.compression`), as Paimon's primary-key writers choose: level 0 is
 * where new rows land, higher levels are compaction's.
 */
final case class LevelFormats(default: FileWriteSpec, formats: Map[Int, String] = Map.empty,
    compressions: Map[Int, String] = Map.empty) {
  def level(level: Int): FileWriteSpec =
    default.copy(format = formats.getOrElse(level, default.format), compression = compressions.getOrElse(level, default.compression))
}
