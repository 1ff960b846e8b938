package paimonspark.table.compact

import paimonspark.format.DataFileReader
import paimonspark.format.metadata.ManifestEntry
import paimonspark.format.row.BinaryRow
import paimonspark.table.FileStoreTable
import paimonspark.table.scan.{DataSplit, ScanPlanner}
import paimonspark.table.write.{PrimaryKeyWriter, WriteRestore}

/**
 * The inline compaction a write task runs on the buckets it wrote, once it wrote them, as Paimon's
 * writers do before they hand their files over (`prepareCommit` waiting for compaction): each
 * bucket's files are those of the snapshot the write started from (`startedFrom`, by
 * [[PrimaryKeyWriter.sequenceKey]]) and the task's new level-0 files, picked as
 * [[TableCompaction.planBucket]] picks them. Its results are committed after the write's own
 * snapshot, as one COMPACT snapshot; one that lost its files to a concurrent compaction meanwhile
 * is dropped.
 */
final class WriteCompaction private (table: FileStoreTable, startedFrom: Map[String, DataSplit],
    vectorIndexFiles: Map[String, Set[String]], reader: DataFileReader) extends Serializable {
  private val partitionTypes = table.schema.partitionRowType.map(_.withNullable(true))

  /** Compacts the buckets of `written` (a task's new data files) that need it. */
  def run(written: Seq[ManifestEntry]): Seq[CompactResult] =
    written.groupBy(e => PrimaryKeyWriter.sequenceKey(e.partition, e.bucket)).toSeq.flatMap { case (key, added) =>
      val first = added.head
      val split = startedFrom.getOrElse(key, DataSplit(BinaryRow.deserialize(partitionTypes, first.partition), first.partition,
        first.bucket, Nil, totalBuckets = first.totalBuckets))
      TableCompaction.planBucket(table, split.copy(files = split.files ++ added.map(_.file)), vectorIndexFiles.getOrElse(key, Set.empty),
        full = false).map(TableCompaction.run(table, _, reader))
    }
}

object WriteCompaction {
  /**
   * The restore of a write at the latest snapshot, and the compaction its tasks run: the live files
   * are planned once for both (with their deletion vectors, where the table has them).
   */
  def plan(table: FileStoreTable, reader: DataFileReader): (WriteRestore, WriteCompaction) = {
    val snapshot = table.snapshotManager.latest()
    val splits = new ScanPlanner(table, checksFeatures = false, appliesDeletionVectors = table.options.deletionVectors)
      .plan(snapshot, None)
    (WriteRestore.of(snapshot, splits), new WriteCompaction(table,
      splits.map(s => PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket) -> s).toMap,
      TableCompaction.vectorIndexFiles(table, snapshot), reader))
  }
}
