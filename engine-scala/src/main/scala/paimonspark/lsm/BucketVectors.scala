package paimonspark.lsm

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import paimonspark.format.DeletionVector

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

/**
 * The rule of a compaction with deletion vectors, for each key it merges: a key whose versions all
 * come from level-0 files is looked up in the levels above the output, lowest first; the live
 * version found there (one at most: older ones are marked already) is marked deleted and merged
 * in as the key's oldest known version, as Paimon's lookup compaction does. A key with a version
 * above level 0 among the compacted files needs no lookup: that file is rewritten anyway.
 */
final class DeletionVectorMarking(vectors: BucketVectors, lookups: Seq[LevelLookup], spec: MergeEngineSpec,
    rowSchema: StructType, fixedOrdinals: Seq[Int]) {
  private val engine = spec.create(rowSchema, fixedOrdinals)
  private val versions = spec.versionOrdering(rowSchema)

  /** The key's merged row, given the compaction's `merged` row and its versions with their levels. */
  def resolve(merged: InternalRow, inputs: Seq[(Int, InternalRow)]): InternalRow =
    if (inputs.exists(_._1 > 0)) merged
    else lookups.iterator.map(_.locate(inputs.head._2)).collectFirst { case Some(hit) => hit } match {
      case None => merged
      case Some(hit) =>
        vectors.mark(hit.file, hit.position)
        engine.reset()
        (hit.row +: inputs.map(_._2)).sorted(versions).foreach(engine.add)
        engine.result()
    }
}
