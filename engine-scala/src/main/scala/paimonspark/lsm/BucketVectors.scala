package paimonspark.lsm

import scala.collection.mutable

import paimonspark.format.metadata.DeletionVector

/**
 * A bucket's (or an append table partition's) deletion vectors while one change is made: those its
 * files had before (rows every read of a compaction skips), and the rows the change marks (the
 * previous versions a compaction finds above its output, the rows a DELETE removes).
 */
final class BucketVectors(before: Map[String, DeletionVector]) extends Serializable {
  private val marked = mutable.Map.empty[String, mutable.ArrayBuffer[Long]]

  /** The vector `file` had before the compaction. */
  def of(file: String): Option[DeletionVector] = before.get(file)

  def mark(file: String, position: Long): Unit = marked.getOrElseUpdate(file, mutable.ArrayBuffer.empty) += position

  /**
   * The vectors of the bucket's files after the compaction, less those of the files it `removed`;
   * None when nothing changed.
   */
  def after(removed: Set[String]): Option[Seq[(String, DeletionVector)]] =
    if (marked.isEmpty && !before.keys.exists(removed)) None
    else Some((before.keySet ++ marked.keySet).filterNot(removed).toSeq.sorted.map { file =>
      file -> before.getOrElse(file, DeletionVector.empty).withDeleted(marked.getOrElse(file, Nil))
    })
}
