package paimonspark.format

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.fs.FileIO

/** One data file being written, in its format: rows of its schema in, its length and statistics out. */
trait DataFileWriter {
  def write(row: InternalRow): Unit
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

object DataFileWriter {
  /**
   * A new data file at `path` holding `fields` (with their ids). `uniqueColumns` hold a distinct value
   * in (nearly) every row, like a key or sequence numbers: formats that build dictionaries skip them,
   * and the columns whose dictionaries files of the same kind dropped (`verdicts`).
   */
  def open(io: FileIO, path: Path, fields: Seq[DataField], spec: FileWriteSpec, uniqueColumns: Seq[String] = Nil,
      verdicts: Option[DictionaryVerdicts] = None): DataFileWriter = spec.format match {
    case DataFileFormat.Parquet => new ParquetDataFile(io.newOutputFile(path), fields, io.hadoopConf.value, spec,
      uniqueColumns, verdicts)
    case DataFileFormat.Orc => new OrcDataFile(io.fileSystem(path), path, fields, io.hadoopConf.value, spec)
    case DataFileFormat.Avro => new AvroDataFile(io.newOutputFile(path).create(0L), fields, spec)
    case other => throw new IllegalArgumentException(s"data files are not written as '$other'")
  }
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
