package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * What a compaction writes for a key in a table that looks keys up (a `lookup` changelog, deletion
 * vectors, `force-lookup`), as Paimon's lookup compaction writes it, so that its readers, which merge
 * a key's level-0 versions with the version of the lowest level above 0 alone, read it right. The
 * merge ([[SortedRunMerge]] with run levels) already took the compacted level-0 versions and the
 * lowest one above. A key whose versions are all new (level 0) is looked up in the levels above the
 * output, nearest first; the version found there is merged in as the key's oldest, and with deletion
 * vectors marked deleted in its file. The key's state before the compaction is that one version.
 * First-row keeps a key's first version: one found above means the new one is dropped.
 */
final class LookupResolution(lookups: Seq[LevelLookup], vectors: Option[BucketVectors], spec: MergeEngineSpec,
    rowSchema: StructType, fixedOrdinals: Seq[Int]) {
  private val engine = spec.create(rowSchema, fixedOrdinals)
  private val versions = spec.versionOrdering(rowSchema)

  /**
   * The version to write for a key (null for none) and its state before, given the merge's `merged`
   * row and the versions it merged with their levels.
   */
  def resolve(merged: InternalRow, inputs: Seq[(Int, InternalRow)]): (InternalRow, Option[InternalRow]) =
    inputs.collectFirst { case (level, row) if level > 0 => row } match {
      case Some(above) => (merged, Some(above))
      case None => lookups.iterator.map(_.locate(inputs.head._2)).collectFirst { case Some(hit) => hit } match {
        case None => (merged, None)
        case Some(hit) =>
          vectors.foreach(_.mark(hit.file, hit.position))
          if (spec.engine == "first-row") (null, Some(hit.row))
          else {
            engine.reset()
            (hit.row +: inputs.map(_._2)).sorted(versions).foreach(engine.add)
            (engine.result(), Some(hit.row))
          }
      }
    }
}
