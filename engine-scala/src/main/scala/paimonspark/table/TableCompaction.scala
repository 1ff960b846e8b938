package paimonspark.table

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{DataFileMeta, DataFileReader, FileKind, ManifestEntry}
import paimonspark.lsm.{CompactUnit, Compactor, MergeEngineSpec, SortedRun}

/** One bucket's compaction: what to merge, into which level, and whether retractions may go. */
final case class CompactTask(partition: Array[Byte], bucket: Int, totalBuckets: Int, unit: CompactUnit,
    dropRetractions: Boolean)

/** What one task changed for a [[CompactTask]]: the entries its bucket loses, and those it gains. */
final case class CompactResult(task: CompactTask, removed: Seq[ManifestEntry], added: Seq[ManifestEntry])

/**
 * Compaction of a primary-key table in three steps: the driver plans a task per bucket from the
 * latest snapshot (Paimon's universal picker, or everything for a full compaction), executors run
 * them (rewriting or only moving up files, see [[paimonspark.lsm.CompactSteps]]), the driver commits
 * all results as one COMPACT snapshot.
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
    val options = table.options
    val compactor = new Compactor(table.dataFileSettings, schema.fields, layout.trimmedKeys.map(schema.fieldNames.indexOf(_)),
      schema.partitionKeys.map(schema.fieldNames.indexOf(_)), MergeEngineSpec.of(table.location.toString, schema), reader,
      maxLevel = options.numLevels - 1, minFileSize = options.compactionFileSize(primaryKey = true))
    val dir = table.paths.bucketDir(table.partitionPath(task.partition), task.bucket)
    val outcome = compactor.compact(dir, task.unit, task.dropRetractions)
    def entries(kind: Int, files: Seq[DataFileMeta]) =
      files.map(ManifestEntry(kind, task.partition, task.bucket, task.totalBuckets, _))
    CompactResult(task, entries(FileKind.Delete, outcome.removed), entries(FileKind.Add, outcome.added))
  }

  /** Commits the results as one COMPACT snapshot; on a conflict the new files are deleted again. */
  def commit(table: FileStoreTable, commitUser: String, results: Seq[CompactResult]): Option[Long] =
    table.newCommit(commitUser).compact(results.flatMap(_.removed), results.flatMap(_.added))
}
