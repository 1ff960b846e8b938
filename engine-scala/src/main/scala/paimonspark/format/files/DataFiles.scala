package paimonspark.format.files

import org.apache.hadoop.fs.Path

import paimonspark.format.{DataField, DataFileFormat, DataFileWriter, FileWriteSpec}
import paimonspark.format.avro.{AvroDataFile, AvroSchema}
import paimonspark.format.orc.OrcDataFile
import paimonspark.format.parquet.{DictionaryVerdicts, ParquetDataFile}
import paimonspark.fs.FileIO

/** Data files of every format this engine writes, chosen by Paimon's `file.format` name. */
object DataFiles {
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

/** The codecs (`file.compression`, Paimon's names) each format's files are written with. */
object DataFileCodecs {
  private val byFormat: Map[String, Set[String]] = Map(
    DataFileFormat.Parquet -> ParquetDataFile.SupportedCodecs,
    DataFileFormat.Orc -> OrcDataFile.SupportedCodecs,
    DataFileFormat.Avro -> AvroDataFile.SupportedCodecs)

  val Known: Set[String] = byFormat.values.flatten.toSet

  def supported(format: String, codec: String): Boolean = byFormat.get(format).exists(_(codec))

  def of(format: String): Seq[String] = byFormat.getOrElse(format, Set.empty).toSeq.sorted
}

/** What a data file format cannot hold as Paimon's writer for it would: refused before anything is written. */
object UnwritableColumns {
  /** The first of `fields` that files of `format` cannot hold, with why. */
  def find(format: String, fields: Seq[DataField]): Option[(String, String)] = format match {
    case DataFileFormat.Avro => fields.iterator.flatMap(f => AvroSchema.unwritable(f.dataType).map(f.name -> _)).nextOption()
    case _ => None
  }
}
