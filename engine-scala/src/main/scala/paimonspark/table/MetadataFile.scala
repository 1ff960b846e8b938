package paimonspark.table

import org.apache.hadoop.fs.Path

import paimonspark.CorruptFileException
import paimonspark.fs.FileIO

/** Reading one metadata file (schema, snapshot, manifest): a file that does not parse is named. */
private[table] object MetadataFile {
  def read[T](io: FileIO, file: Path)(decode: Array[Byte] => T): T = {
    val bytes = io.readBytes(file)
    try decode(bytes)
    catch { case e: Exception => throw new CorruptFileException(file.toString, e) }
  }
}
