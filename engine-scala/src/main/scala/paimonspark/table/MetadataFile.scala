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
  def read[T](io: FileIO, file: Path)(decode: Array[Byte] => T): T = decoded(file, io.readBytes(file))(decode)

  /** A manifest, manifest list or index manifest, from [[ManifestCache]] when this JVM read it before. */
  def readManifest[T](io: FileIO, file: Path)(decode: Array[Byte] => T): T = ManifestCache.get(file) match {
    case Some(bytes) => decode(bytes)
    case None =>
      val bytes = io.readBytes(file)
      val value = decoded(file, bytes)(decode)
      ManifestCache.put(file, bytes)
      value
  }

  private def decoded[T](file: Path, bytes: Array[Byte])(decode: Array[Byte] => T): T = {
    if (bytes.isEmpty) throw new FileNotFoundException(s"$file is empty: still being created, or left by a writer that stopped")
    try decode(bytes)
    catch { case e: Exception => throw new CorruptFileException(file.toString, e) }
  }
}
