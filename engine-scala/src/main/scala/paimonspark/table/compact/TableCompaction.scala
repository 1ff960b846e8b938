package paimonspark.table.compact

import paimonspark.UnsupportedFeatureException
import paimonspark.format.DataFileReader
import paimonspark.format.metadata.{DataFileMeta, DeletionFile, FileKind, IndexManifestAvro, ManifestEntry, Snapshot}
import paimonspark.lsm.{BucketVectors, ChangelogSettings, CompactUnit, Compactor, MergeEngineSpec, SortedRun, UpgradeRule}
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate}
import paimonspark.table.options.ChangelogProducer
import paimonspark.table.scan.{DataSplit, ScanPlanner}
import paimonspark.table.write.{IndexChange, PrimaryKeyWriter, TableCommit, VectorIndexFile}

/**
 * One bucket's compaction: what to merge, into which level, and whether retractions may go; with
 * the `lookup` changelog producer or deletion vectors, the bucket's other runs, where keys are
 * looked up; with deletion vectors, the vectors of the bucket's files and the index files holding them.
 */
final case class CompactTask(partition: Array[Byte], bucket: Int, totalBuckets: Int, unit: CompactUnit,
    dropRetractions: Boolean, lookupRuns: Seq[SortedRun] = Nil, deletionFiles: Map[String, DeletionFile] = Map.empty,
    vectorIndexFiles: Set[String] = Set.empty, rewriteAll: Boolean = false)

/**
 * What one task changed for a [[CompactTask]]: the entries its bucket loses and gains, its
 * changelog, and its new deletion-vector index files.
 */
final case class CompactResult(task: CompactTask, removed: Seq[ManifestEntry], added: Seq[ManifestEntry],
    changelog: Seq[ManifestEntry] = Nil, index: Seq[IndexChange] = Nil)

/**
 * Compaction of a primary-key table in three steps: the driver plans a task per bucket from the
 * latest snapshot (Paimon's universal picker, or everything for a full compaction), executors run
 * them (rewriting or only moving up files, see [[paimonspark.lsm.CompactSteps]]), the driver commits
 * all results as one COMPACT snapshot.
 */
object TableCompaction {

  /** The buckets to compact at snapshot `latest`, optionally only those matching a partition filter or in `buckets`. */
  def plan(table: FileStoreTable, latest: Option[Snapshot], filter: Option[Predicate], full: Boolean,
      buckets: Option[Set[String]] = None): Seq[CompactTask] = {
    requirePrimaryKey(table)
    val vectorFiles = vectorIndexFiles(table, latest)
    new ScanPlanner(table, appliesDeletionVectors = table.options.deletionVectors).plan(latest, filter)
      .filter(s => buckets.forall(_.contains(PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket))))
      .flatMap(split => planBucket(table, split, vectorFiles.getOrElse(PrimaryKeyWriter.sequenceKey(split.partitionBytes,
        split.bucket), Set.empty), full))
  }

  /** A deletion-vector table's `DELETION_VECTORS` index files at `snapshot`, by bucket ([[PrimaryKeyWriter.sequenceKey]]). */
  def vectorIndexFiles(table: FileStoreTable, snapshot: Option[Snapshot]): Map[String, Set[String]] =
    if (!table.options.deletionVectors) Map.empty
    else table.newManifestStore().indexFiles(snapshot).filter(_.indexType == IndexManifestAvro.DeletionVectorsIndex)
      .groupBy(e => PrimaryKeyWriter.sequenceKey(e.partition, e.bucket)).map { case (k, es) => k -> es.map(_.fileName).toSet }

  /**
   * What to compact of one bucket's live files (`split`, with their deletion files where the table has
   * vectors), whose vectors are in `vectorIndexFiles`: Paimon's universal picker (its lookup variant
   * where keys are looked up), or everything for a full compaction. None when nothing needs it.
   */
  def planBucket(table: FileStoreTable, split: DataSplit, vectorIndexFiles: Set[String], full: Boolean): Option[CompactTask] = {
    requirePrimaryKey(table)
    val picker = table.options.compaction
    val spec = MergeEngineSpec.of(table.location.toString, table.schema)
    // Deletion vectors, like the lookup producer and force-lookup, look keys up; vectors make level-0 rows
    // visible only once compacted.
    val vectors = table.options.deletionVectors
    val lookup = table.options.changelogProducer == ChangelogProducer.Lookup || spec.lookupMerge
    val runs = SortedRun.of(split.files)
    // First-row readers (Java's, pypaimon's) read levels above 0 without merging, so a key must
    // live in one file there: Paimon ensures it by looking keys up while compacting; here a
    // bucket with level-0 files is compacted whole, which ensures it too.
    val unit = if (full) picker.full(runs, table.options.forceRewriteAllFiles)
      else if (spec.engine == "first-row") { if (runs.exists(_.level == 0)) picker.full(runs) else None }
      else if (lookup) picker.pickForLookup(runs, table.options.gentleLookupInterval)
      else picker.pick(runs)
    val highest = split.files.map(_.level).max
    unit.map { u =>
      val inUnit = u.files.map(_.fileName).toSet
      // With vectors, what a retraction deletes above the output is marked: it may go at any level above 0.
      // A partition not yet rescaled keeps the bucket count its files were written with.
      CompactTask(split.partitionBytes, split.bucket, split.totalBuckets, u,
        dropRetractions = u.outputLevel != 0 && (vectors || u.outputLevel >= highest),
        lookupRuns = if (lookup) SortedRun.of(split.files.filterNot(f => inUnit(f.fileName))) else Nil,
        // Vectors of files gone since (overwritten, say) are left out, and so dropped at the rewrite.
        deletionFiles = split.deletionFiles.filter { case (file, _) => split.files.exists(_.fileName == file) },
        vectorIndexFiles = vectorIndexFiles, rewriteAll = full && table.options.forceRewriteAllFiles)
    }
  }

  private def requirePrimaryKey(table: FileStoreTable): Unit = if (!table.isPrimaryKeyTable) {
    throw new UnsupportedFeatureException(s"table ${table.location} has no primary key: append tables are " +
      "compacted by AppendCompaction, not by merging sorted runs")
  }

  /** Runs one task on an executor. */
  def run(table: FileStoreTable, task: CompactTask, reader: DataFileReader): CompactResult = {
    val schema = table.schema
    val layout = KeyLayout.of(table.location.toString, schema)
    val options = table.options
    val spec = MergeEngineSpec.of(table.location.toString, schema)
    val maxLevel = options.numLevels - 1
    val upgrades = UpgradeRule.of(spec, options.changelogProducer == ChangelogProducer.FullCompaction,
      options.deletionVectors, maxLevel, options.levelFormats.level(_).format)
    val compactor = new Compactor(table.dataFileSettings, schema.fields, layout.trimmedKeys.map(schema.fieldNames.indexOf(_)),
      schema.partitionKeys.map(schema.fieldNames.indexOf(_)), spec, reader,
      maxLevel = maxLevel, minFileSize = options.compactionFileSize(primaryKey = true), upgrades = upgrades)
    val dir = table.paths.bucketDir(table.partitionPath(task.partition), task.bucket)
    // Full-compaction changelogs come from compactions into the top level only.
    val settledLevel = options.changelogProducer match {
      case ChangelogProducer.Lookup => Some(1)
      case ChangelogProducer.FullCompaction if task.unit.outputLevel == maxLevel => Some(maxLevel)
      case _ => None
    }
    val changelog = settledLevel.map(level => ChangelogSettings(table.changelogFileSettings, level,
      options.changelogRowDeduplicate, options.changelogRowDeduplicateIgnoreFields.toSet))
    val vectors = if (options.deletionVectors) Some(new BucketVectors(DeletionFile.readAll(table.io, task.deletionFiles)))
      else None
    val outcome = compactor.compact(dir, task.unit, task.dropRetractions, changelog, task.lookupRuns, vectors, task.rewriteAll)
    def entries(kind: Int, files: Seq[DataFileMeta]) =
      files.map(ManifestEntry(kind, task.partition, task.bucket, task.totalBuckets, _))
    val rewritten = outcome.removed.map(_.fileName).toSet -- outcome.added.map(_.fileName)
    // One index file with the bucket's vectors after the compaction (none if none is left), replacing its old ones.
    val index = vectors.flatMap(_.after(rewritten)).map(v => IndexChange(task.partition, task.bucket,
      IndexManifestAvro.DeletionVectorsIndex, VectorIndexFile.write(table, task.partition, task.bucket, v), task.vectorIndexFiles))
    CompactResult(task, entries(FileKind.Delete, outcome.removed), entries(FileKind.Add, outcome.added),
      entries(FileKind.Add, outcome.changelog), index.toSeq)
  }

  /** Commits the results as one COMPACT snapshot; on a conflict the new files are deleted again. */
  def commit(table: FileStoreTable, commitUser: String, results: Seq[CompactResult]): Option[Long] =
    new TableCommit(table, commitUser).compact(results.flatMap(_.removed), results.flatMap(_.added),
      results.flatMap(_.changelog), results.flatMap(_.index))

  /** Deletes the files of results that will not be committed (their write failed, say). */
  def discard(table: FileStoreTable, results: Seq[CompactResult]): Unit =
    TableCommit.discardCompaction(table, results.flatMap(_.removed), results.flatMap(_.added),
      results.flatMap(_.changelog), results.flatMap(_.index))
}
