package paimonspark.table.write

import paimonspark.format.{FileNamer, TablePaths}
import paimonspark.format.metadata.{DeletionVector, DeletionVectorIndexFile, FileKind, IndexFileEntry,
  IndexManifestAvro}
import paimonspark.table.FileStoreTable

/** Writes the deletion vectors of one (partition, bucket) into a new index file of the table's `index/` directory. */
object VectorIndexFile {
  /** The index file's entry; none when there is no vector left to keep. */
  def write(table: FileStoreTable, partition: Array[Byte], bucket: Int, vectors: Seq[(String, DeletionVector)])
      : Seq[IndexFileEntry] =
    if (vectors.isEmpty) Nil
    else {
      val name = new FileNamer(TablePaths.IndexFilePrefix, "").next()
      val (bytes, ranges) = DeletionVectorIndexFile.write(vectors, table.options.deletionVectorsBitmap64)
      table.io.writeBytes(table.paths.indexFile(name), bytes)
      Seq(IndexFileEntry(FileKind.Add, partition, bucket, IndexManifestAvro.DeletionVectorsIndex, name,
        bytes.length.toLong, vectors.size.toLong, ranges))
    }
}
