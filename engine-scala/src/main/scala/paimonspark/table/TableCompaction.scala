package paimonspark.table

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{DataFileReader, FileKind, ManifestEntry}
import paimonspark.lsm.{CompactUnit, Compactor, MergeEngineSpec, SortedRun}

/** One bucket's compaction: what to merge, into which level, and whether retractions may go. */
final case class CompactTask(partition: Array[Byte], bucket: Int, totalBuckets: Int, unit: CompactUnit,
    dropRetractions: Boolean) {
  def replaced: Seq[ManifestEntry] = unit.files.map(ManifestEntry(FileKind.Delete, partition, bucket, totalBuckets, _))
}

/** What one task wrote for a [[CompactTask]]. */
final case class CompactResult(task: CompactTask, added: Seq[ManifestEntry])

/**
 * Compaction of a primary-key table in three steps: the driver plans a task per bucket from the
 * latest snapshot (Paimon's universal picker, or everything for a full compaction), executors run
 * them, the driver commits all results as one COMPACT snapshot.
 */
object TableCompaction {

  /** The buckets to compact, optionally only those matching a partition filter or in `buckets`. */
  def plan(table: FileStoreTable, filter: Option[Predicate], full: Boolean,
      buckets: Option[Set[String]] = None): Seq[CompactTask] = {
    if (!table.isPrimaryKeyTable) {
      throw new UnsupportedFeatureException(s"table ${table.location} has no primary key: append tables are " +
        "compacted by AppendCompaction, not by merging sorted runs")
    }
    val picker = table.options.compaction
    val upLevel0 = MergeEngineSpec.of(table.location.toString, table.schema).engine == "first-row"
    table.newScan().plan(table.snapshotManager.latest(), filter)
      .filter(s => buckets.forall(_.contains(PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket))))
      .flatMap { split =>
        val runs = SortedRun.of(split.files)
        // First-row readers (Java's, pypaimon's) read levels above 0 without merging, so a key must
        // live in one file there: Paimon ensures it by looking keys up while compacting; here a
        // bucket with level-0 files is compacted whole, which ensures it too.
        val unit = if (full) picker.full(runs)
          else if (upLevel0) { if (runs.exists(_.level == 0)) picker.full(runs) else None }
          else picker.pick(runs)
        val highest = split.files.map(_.level).max
        unit.map(u => CompactTask(split.partitionBytes, split.bucket, table.options.bucket, u,
          dropRetractions = u.outputLevel != 0 && u.outputLevel >= highest))
      }
  }

  /** Runs one task on an executor. */
  def run(table: FileStoreTable, task: CompactTask, reader: DataFileReader): CompactResult = {
    val schema = table.schema
    val layout = KeyLayout.of(table.location.toString, schema)
    val compactor = new Compactor(table.dataFileSettings, schema.fields, layout.trimmedKeys.map(schema.fieldNames.indexOf(_)),
      schema.partitionKeys.map(schema.fieldNames.indexOf(_)), MergeEngineSpec.of(table.location.toString, schema), reader)
    val dir = table.paths.bucketDir(table.partitionPath(task.partition), task.bucket)
    val files = compactor.compact(dir, task.unit, task.dropRetractions)
    CompactResult(task, files.map(ManifestEntry(FileKind.Add, task.partition, task.bucket, task.totalBuckets, _)))
  }

  /** Commits the results as one COMPACT snapshot; on a conflict the new files are deleted again. */
  def commit(table: FileStoreTable, commitUser: String, results: Seq[CompactResult]): Option[Long] =
    table.newCommit(commitUser).compact(results.flatMap(_.task.replaced), results.flatMap(_.added))
}
