package paimonspark.table.write

import java.nio.ByteBuffer

import paimonspark.format.metadata.{DeletionFile, DeletionVector, IndexManifestAvro, Snapshot}
import paimonspark.lsm.BucketVectors
import paimonspark.table.FileStoreTable

/**
 * The deletion vectors of an append table's partitions, as Paimon keeps them for bucket-unaware
 * tables: per partition (bucket 0), index files holding the vectors of its data files. A change
 * rewrites a partition's vectors into one new index file, replacing every index file the partition
 * had in `snapshot`; a partition whose vectors another commit changed since then is a conflict
 * ([[TableCommit]]).
 */
final class AppendVectors(table: FileStoreTable, snapshot: Option[Snapshot]) {
  private val indexes = table.newManifestStore().indexFiles(snapshot)
    .filter(_.indexType == IndexManifestAvro.DeletionVectorsIndex).groupBy(_.partitionKey)

  /** The vectors `partition`'s data files have in `snapshot`, by data file name. */
  def vectors(partition: Array[Byte]): Map[String, DeletionVector] =
    DeletionFile.readAll(table.io, indexes.getOrElse(ByteBuffer.wrap(partition), Nil).flatMap(table.deletionFiles).toMap)

  /**
   * The partition's index rewritten: rows `marked` added to their files' vectors, the vectors of
   * `dropped` files (rewritten by a compaction) left out. None when nothing changes.
   */
  def rewrite(partition: Array[Byte], marked: Map[String, Seq[Long]], dropped: Set[String]): Option[IndexChange] = {
    val changed = new BucketVectors(vectors(partition))
    marked.foreach { case (file, positions) => positions.foreach(changed.mark(file, _)) }
    changed.after(dropped).map(after => IndexChange(partition, AppendVectors.Bucket, IndexManifestAvro.DeletionVectorsIndex,
      VectorIndexFile.write(table, partition, AppendVectors.Bucket, after),
      indexes.getOrElse(ByteBuffer.wrap(partition), Nil).map(_.fileName).toSet))
  }
}

object AppendVectors {
  /** The bucket bucket-unaware tables record their files and index files in. */
  val Bucket = 0
}
