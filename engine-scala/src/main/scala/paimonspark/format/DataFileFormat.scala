package paimonspark.format

/**
 * The formats of Paimon's data files, as a file's name says (`data-<uuid>-<n>.<format>`): readers
 * choose by it per file, since one table may hold files of several formats (`file.format` changed,
 * `file.format.per.level`).
 */
object DataFileFormat {
  val Parquet = "parquet"
  val Orc = "orc"
  val Avro = "avro"

  /** Formats whose files are read here. */
  val Readable: Set[String] = Set(Parquet, Orc, Avro)

  /** The format of a data file by its name's extension, lower-case. */
  def of(fileName: String): String = fileName.substring(fileName.lastIndexOf('.') + 1).toLowerCase
}
