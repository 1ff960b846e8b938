package paimonspark.table.compact

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{DataFileMeta, DataFileReader, FileKind, ManifestEntry}
import paimonspark.lsm.{ChangelogSettings, CompactUnit, Compactor, MergeEngineSpec, SortedRun}
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate}
import paimonspark.table.options.ChangelogProducer
import paimonspark.table.scan.ScanPlanner
import paimonspark.table.write.{PrimaryKeyWriter, TableCommit}

/**
 * One bucket's compaction: what to merge, into which level, and whether retractions may go; with
 * the `lookup` changelog producer, the bucket's other runs, where keys are looked up.
 */
final case class CompactTask(partition: Array[Byte], bucket: Int, totalBuckets: Int, unit: CompactUnit,
    dropRetractions: Boolean, lookupRuns: Seq[SortedRun] = Nil)

/** What one task changed for a [[CompactTask]]: the entries its bucket loses and gains, and its changelog. */
final case class CompactResult(task: CompactTask, removed: Seq[ManifestEntry], added: Seq[ManifestEntry],
    changelog: Seq[ManifestEntry] = Nil)

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
    val lookup = table.options.changelogProducer == ChangelogProducer.Lookup
    new ScanPlanner(table).plan(table.snapshotManager.latest(), filter)
      .filter(s => buckets.forall(_.contains(PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket))))
      .flatMap { split =>
        val runs = SortedRun.of(split.files)
        // First-row readers (Java's, pypaimon's) read levels above 0 without merging, so a key must
        // live in one file there: Paimon ensures it by looking keys up while compacting; here a
        // bucket with level-0 files is compacted whole, which ensures it too.
        val unit = if (full) picker.full(runs)
          else if (upLevel0) { if (runs.exists(_.level == 0)) picker.full(runs) else None }
          else if (lookup) picker.pick(runs).orElse(picker.forcePickLevel0(runs))
          else picker.pick(runs)
        val highest = split.files.map(_.level).max
        unit.map { u =>
          val inUnit = u.files.map(_.fileName).toSet
          CompactTask(split.partitionBytes, split.bucket, table.options.bucket, u,
            dropRetractions = u.outputLevel != 0 && u.outputLevel >= highest,
            lookupRuns = if (lookup) SortedRun.of(split.files.filterNot(f => inUnit(f.fileName))) else Nil)
        }
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
    val maxLevel = options.numLevels - 1
    // Full-compaction changelogs come from compactions into the top level only.
    val settledLevel = options.changelogProducer match {
      case ChangelogProducer.Lookup => Some(1)
      case ChangelogProducer.FullCompaction if task.unit.outputLevel == maxLevel => Some(maxLevel)
      case _ => None
    }
    val changelog = settledLevel.map(level => ChangelogSettings(table.changelogFileSettings, level, task.lookupRuns,
      options.changelogRowDeduplicate, options.changelogRowDeduplicateIgnoreFields.toSet))
    val outcome = compactor.compact(dir, task.unit, task.dropRetractions, changelog)
    def entries(kind: Int, files: Seq[DataFileMeta]) =
      files.map(ManifestEntry(kind, task.partition, task.bucket, task.totalBuckets, _))
    CompactResult(task, entries(FileKind.Delete, outcome.removed), entries(FileKind.Add, outcome.added),
      entries(FileKind.Add, outcome.changelog))
  }

  /** Commits the results as one COMPACT snapshot; on a conflict the new files are deleted again. */
  def commit(table: FileStoreTable, commitUser: String, results: Seq[CompactResult]): Option[Long] =
    new TableCommit(table, commitUser).compact(results.flatMap(_.removed), results.flatMap(_.added),
      results.flatMap(_.changelog))
}
