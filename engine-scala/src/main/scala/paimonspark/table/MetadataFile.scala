package paimonspark.table

import java.io.FileNotFoundException

import org.apache.hadoop.fs.Path

import paimonspark.CorruptFileException
import paimonspark.fs.FileIO

/**
 * Reading one metadata file (schema, snapshot, tag, manifest): a file that does not parse is named. An
 * empty one is absent: a published file still being created ([[paimonspark.fs.PublishedFile]]).
 */
private[table] object MetadataFile {
  def read[T](io: FileIO, file: Path)(decode: Array[Byte] => T): T = {
    val bytes = io.readBytes(file)
    if (bytes.isEmpty) throw new FileNotFoundException(s"$file is empty: still being created, or left by a writer that stopped")
    try decode(bytes)
    catch { case e: Exception => throw new CorruptFileException(file.toString, e) }
  }
}
