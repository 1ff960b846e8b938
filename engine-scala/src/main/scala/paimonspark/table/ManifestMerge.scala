package paimonspark.table

import scala.collection.mutable

import paimonspark.PaimonException
import paimonspark.format.DataType
import paimonspark.format.metadata._
import paimonspark.format.row.BinaryRow
import paimonspark.table.Predicate._

/**
 * Paimon's `ManifestFileMerger` (1.4): the manifests of a commit's new base list, from every data
 * manifest of the snapshot it follows, so that neither their number nor their DELETE entries grow
 * with history.
 *
 * A full compaction runs once the manifests that must change, those holding DELETE entries or
 * smaller than `manifest.target-file-size`, add up to `manifest.full-compaction-threshold-size`:
 * every DELETE goes, with the ADD it cancels, and what those manifests still add is rewritten into
 * manifests of the target size. Full manifests without DELETE entries stay as they are when no
 * DELETE may be in their partitions (by their partition statistics, against the range the deleted
 * files' partitions span) or when none of their files was deleted. Otherwise a minor compaction:
 * consecutive manifests are merged once together they reach the target size, and those left at the
 * end once there are `manifest.merge-min-count` of them; a DELETE whose ADD is in an earlier
 * manifest stays, after it.
 */
final class ManifestMerge(store: ManifestStore, partitionTypes: Seq[DataType], targetSize: Long, minCount: Int,
    fullCompactionThreshold: Long) {

  def merge(manifests: Seq[ManifestFileMeta]): Seq[ManifestFileMeta] =
    fullCompaction(manifests).getOrElse(minorCompaction(manifests))

  private def mustChange(m: ManifestFileMeta): Boolean = m.numDeletedFiles > 0 || m.fileSize < targetSize

  private def minorCompaction(manifests: Seq[ManifestFileMeta]): Seq[ManifestFileMeta] = {
    val result = mutable.ArrayBuffer.empty[ManifestFileMeta]
    val run = mutable.ArrayBuffer.empty[ManifestFileMeta]
    var runSize = 0L
    manifests.foreach { m =>
      run += m
      runSize += m.fileSize
      if (runSize >= targetSize) {
        result ++= mergeRun(run.toSeq)
        run.clear()
        runSize = 0
      }
    }
    result ++= (if (run.size >= minCount) mergeRun(run.toSeq) else run)
    result.toSeq
  }

  /** Consecutive manifests as one: a DELETE cancels the ADD before it; one whose ADD is not in the run stays. */
  private def mergeRun(run: Seq[ManifestFileMeta]): Seq[ManifestFileMeta] = if (run.size == 1) run else {
    val entries = mutable.LinkedHashMap.empty[FileIdentifier, ManifestEntry]
    run.foreach(m => store.readManifest(m.fileName).foreach { e =>
      val id = e.identifier
      if (e.kind == FileKind.Add) {
        if (entries.contains(id)) throw new PaimonException(s"file ${e.file.fileName} is added twice (manifest ${m.fileName})")
        entries.put(id, e)
      } else if (entries.remove(id).isEmpty) entries.put(id, e)
    })
    store.writeManifests(entries.values.toSeq)
  }

  private def fullCompaction(manifests: Seq[ManifestFileMeta]): Option[Seq[ManifestFileMeta]] = {
    if (manifests.filter(mustChange).map(_.fileSize).sum < fullCompactionThreshold) return None
    val deleted = manifests.filter(_.numDeletedFiles > 0).flatMap(m => store.readManifest(m.fileName))
      .collect { case e if e.kind == FileKind.Delete => e.identifier }.toSet
    val (untouched, merged) = manifests.partition(m => !mustChange(m) && !mayHoldDeletes(m, deleted))
    if (merged.size <= 1) return None
    val kept = mutable.ArrayBuffer(untouched: _*)
    val rewritten = mutable.ArrayBuffer.empty[ManifestEntry]
    merged.foreach { m =>
      val added = store.readManifest(m.fileName).filter(_.kind == FileKind.Add)
      val live = added.filterNot(e => deleted(e.identifier))
      if (mustChange(m) || live.size < added.size) rewritten ++= live else kept += m
    }
    Some(kept.toSeq ++ store.writeManifests(rewritten.toSeq))
  }

  /**
   * Whether a manifest may hold files of the deleted files' partitions, as Paimon's partition
   * predicate of several partitions decides it: from each partition field's range over them.
   */
  private def mayHoldDeletes(m: ManifestFileMeta, deleted: Set[FileIdentifier]): Boolean =
    if (deleted.isEmpty) false
    else if (partitionTypes.isEmpty || BinaryRow.holdsNoFields(m.partitionStats.minValues)) true
    else {
      val stats = m.partitionStats
      val (mins, maxs) = (BinaryRow.deserialize(partitionTypes, stats.minValues),
        BinaryRow.deserialize(partitionTypes, stats.maxValues))
      val rowCount = m.numAddedFiles + m.numDeletedFiles
      val ranges = new RangeFilter(i => ValueOrdering.of(partitionTypes(i)))
      ranges.mayMatch(spanOf(deleted.map(_.partition.array()).toSeq), i =>
        ColumnRange(mins.values(i), maxs.values(i), stats.nullCounts.flatMap(_.lift(i)).flatten, rowCount))
    }

  /** Each partition field between the least and greatest value of `partitions`, or null where one of them is. */
  private def spanOf(partitions: Seq[Array[Byte]]): Predicate = {
    val rows = partitions.map(BinaryRow.deserialize(partitionTypes, _))
    partitionTypes.indices.map[Predicate] { i =>
      val values = rows.map(_.values(i)).filter(_ != null)
      val nulls = values.size < rows.size
      ValueOrdering.of(partitionTypes(i)) match {
        case _ if values.isEmpty => IsNull(i)
        case None => Constant(true)
        case Some(o) =>
          val bound = (op: Op, v: Any) => if (nulls) Or(IsNull(i), Compare(op, i, v)) else Compare(op, i, v)
          And(bound(GtEq, values.min(o)), bound(LtEq, values.max(o)))
      }
    }.reduce(And)
  }
}
