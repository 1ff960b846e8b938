package paimonspark.lsm

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnVector

import paimonspark.format.{DataField, DataFileReader, SparkTypes}
import paimonspark.format.metadata.{DataFileMeta, FileSource}

/**
 * Runs one [[CompactUnit]] of a bucket as Paimon does: [[CompactSteps]] decides which files are
 * merged and which only move up to the output level. Merged files are read as sorted runs (each
 * level-0 file alone, each higher level as its files in key order, opened one at a time), folded by
 * the table's merge engine and written as new files at the unit's output level. Retractions are
 * dropped only when nothing older can lie below the output (`dropRetractions`). In a table that
 * looks keys up (`spec.lookupMerge`), a key's level-0 versions are merged with the lowest version
 * above alone, found among the compacted files or above the output ([[LookupResolution]]); with
 * deletion vectors (`vectors`), rows they mark are not read, and the versions found above are marked.
 * A file moved up alone is read, rewritten or only moved as `upgrades` (Paimon's upgrade strategy)
 * says: read, it is merged like a rewritten one for its changelog and the versions it replaces, and kept.
 * Where the merge is the deduplicate merge of an integral key and nothing but the merged rows is
 * wanted, files are merged on their column batches and written a column at a time (`batchMerge`).
 */
final class Compactor(
    settings: DataFileSettings,
    fields: Seq[DataField],
    keyIndices: Seq[Int],
    partitionIndices: Seq[Int],
    spec: MergeEngineSpec,
    reader: DataFileReader,
    maxLevel: Int,
    minFileSize: Long,
    upgrades: UpgradeRule,
    batchMerge: Boolean = true) {

  private val rowSchema = StructType(KeyValue.SystemFields ++
    SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false)).fields)
  private val keyRanges = new KeyRanges(keyIndices.map(fields(_).dataType))
  private val batchKey = KeyColumnMerge.keyOf(rowSchema, keyIndices.map(_ + 2), spec).filter(_ => batchMerge && reader.columnar)
  private val keyOrdering = GenerateOrdering.generate(keyIndices.map { i =>
    SortOrder(BoundReference(i + 2, rowSchema(i + 2).dataType, nullable = false), Ascending)
  })

  /**
   * Carries out `unit` in `bucketDir`: the files the bucket loses and those it gains (an upgraded
   * file is in both, at its old and its new level). On failure the new files are deleted again.
   * `lookupRuns` are the bucket's runs outside the unit, where a changelog or deletion vectors look keys up.
   */
  def compact(bucketDir: Path, unit: CompactUnit, dropRetractions: Boolean,
      changelog: Option[ChangelogSettings] = None, lookupRuns: Seq[SortedRun] = Nil,
      vectors: Option[BucketVectors] = None, rewriteAll: Boolean = false): CompactOutcome = {
    val steps = CompactSteps(unit.outputLevel, maxLevel, minFileSize, upgrades, rewriteAll).plan(keyRanges.sections(unit.files))
    val written = ArrayBuffer.empty[DataFileMeta]
    val lookups = if (changelog.isEmpty && !spec.lookupMerge) Nil else lookupRuns.map(run => new LevelLookup(run.files,
      keyRanges, reader, bucketDir, rowSchema, keyIndices.map(_ + 2), file => vectors.flatMap(_.of(file))))
    val producer = changelog.map(new ChangelogOutput(bucketDir, unit.outputLevel, _, lookups))
    val resolution = if (!spec.lookupMerge) None
      else Some(new LookupResolution(lookups, vectors, spec, rowSchema, (keyIndices ++ partitionIndices).map(_ + 2)))
    // What reading a file that moves changes: its changelog, the versions deletion vectors mark above it.
    val readChanges = producer.isDefined || vectors.isDefined && resolution.isDefined
    try {
      val added = steps.map {
        case CompactStep.Upgrade(file, read) =>
          if (read && readChanges) merge(bucketDir, Seq(file), unit.outputLevel, dropRetractions, producer, resolution,
            vectors, write = false)
          Seq(file.copy(level = unit.outputLevel))
        case CompactStep.Rewrite(files) =>
          val merged = merge(bucketDir, files, unit.outputLevel, dropRetractions, producer, resolution, vectors)
          written ++= merged
          merged
      }
      val removed = steps.flatMap {
        case CompactStep.Upgrade(file, _) => Seq(file)
        case CompactStep.Rewrite(files) => files
      }
      CompactOutcome(removed, added.flatten, producer.map(_.finish()).getOrElse(Nil))
    } catch {
      case e: Throwable =>
        written.foreach(f => settings.io.delete(new Path(bucketDir, f.fileName), recursive = false))
        producer.foreach(_.abort())
        throw e
    } finally lookups.foreach(_.close())
  }

  /** The changelog a compaction writes: one file (rolling) per bucket, and the lookups of levels below it. */
  private final class ChangelogOutput(bucketDir: Path, level: Int, changelog: ChangelogSettings, lookups: Seq[LevelLookup]) {
    private val writer = new KeyValueFileWriter(changelog.files, bucketDir, fields, keyIndices, level, FileSource.Append)
    val rule = new LookupChangelog(spec, rowSchema, (keyIndices ++ partitionIndices).map(_ + 2), lookups,
      changelog.settledLevel, changelog.rowDeduplicate, changelog.ignoredColumns.map(c => fields.indexWhere(_.name == c) + 2), writer.write)
    def finish(): Seq[DataFileMeta] = writer.finish()
    def abort(): Unit = writer.abort()
  }

  /**
   * Merges `files` into new files at `level`, the files written; without `write`, only for what
   * the merge produces besides (the changelog, marked versions), and nothing is written.
   */
  private def merge(bucketDir: Path, files: Seq[DataFileMeta], level: Int, dropRetractions: Boolean,
      changelog: Option[ChangelogOutput], resolution: Option[LookupResolution], vectors: Option[BucketVectors],
      write: Boolean = true): Seq[DataFileMeta] = {
    // The changelog and the lookups need every merged key, retractions included: they are dropped here instead.
    val perKey = changelog.isDefined || resolution.isDefined
    batchKey.filter(_ => write && !perKey && vectors.isEmpty) match {
      case Some(key) => mergeBatches(bucketDir, files, key, level, dropRetractions)
      case None => mergeRows(bucketDir, files, level, dropRetractions, changelog, resolution, vectors, write, perKey)
    }
  }

  private def mergeRows(bucketDir: Path, files: Seq[DataFileMeta], level: Int, dropRetractions: Boolean,
      changelog: Option[ChangelogOutput], resolution: Option[LookupResolution], vectors: Option[BucketVectors],
      write: Boolean, perKey: Boolean): Seq[DataFileMeta] = {
    val opened = ArrayBuffer.empty[DataFileReader.Rows]
    def rows(files: Seq[DataFileMeta]): Iterator[InternalRow] = files.iterator.flatMap { f =>
      val r = reader.open(new Path(bucketDir, f.fileName), f.fileSize, f.schemaId)
      opened += r
      vectors.flatMap(_.of(f.fileName)).fold[Iterator[InternalRow]](r)(_.live(r))
    }
    val sortedRuns = SortedRun.of(files)
    val runs = sortedRuns.map(run => rows(if (run.level == 0) run.files else keyRanges.byMinKey(run.files)))
    val engine = spec.create(rowSchema, (keyIndices ++ partitionIndices).map(_ + 2))
    val merged = new SortedRunMerge(runs, keyOrdering, engine, spec.versionOrdering(rowSchema),
      dropRetractions && !perKey, integralKey = IntegralKey.of(rowSchema, keyIndices.map(_ + 2)),
      runLevels = if (spec.lookupMerge) Some(sortedRuns.map(_.level)) else None)
    val writer = if (write) Some(new KeyValueFileWriter(settings, bucketDir, fields, keyIndices, level, FileSource.Compact))
      else None
    try {
      if (!perKey) writer.foreach(w => merged.foreach(w.write))
      else merged.foreach { row =>
        val inputs = merged.lastVersions.map { case (run, version) => (sortedRuns(run).level, version) }
        val out = resolution match {
          case Some(lookup) =>
            val (written, before) = lookup.resolve(row, inputs)
            changelog.foreach(_.rule.onLookup(inputs, before, written))
            written
          case None =>
            changelog.foreach(_.rule.onKey(inputs))
            row
        }
        if (out != null && !(dropRetractions && KeyValue.isRetract(out))) writer.foreach(_.write(out))
      }
      writer.fold(Seq.empty[DataFileMeta])(_.finish())
    } catch {
      case e: Throwable =>
        writer.foreach(_.abort())
        throw e
    } finally opened.foreach(_.close())
  }

  /**
   * The merge of `files` into new files at `level` on their column batches ([[KeyColumnMerge]]):
   * each batch of results is gathered from the runs' batches and written a column at a time,
   * before any run moves to its next batch.
   */
  private def mergeBatches(bucketDir: Path, files: Seq[DataFileMeta], key: IntegralKey, level: Int,
      dropRetractions: Boolean): Seq[DataFileMeta] = {
    val runs = SortedRun.of(files).map { run =>
      new RunBatches(if (run.level == 0) run.files else keyRanges.byMinKey(run.files),
        f => reader.open(new Path(bucketDir, f.fileName), f.fileSize, f.schemaId))
    }.toArray
    val merge = new KeyColumnMerge(runs, key, spec.ignoreDelete, keepRetractions = !dropRetractions)
    val selection = new Selection(Compactor.BatchSize)
    val columns = rowSchema.fields.map(f => new GatherVector(f.dataType, runs.length, selection))
    val input = columns.toArray[ColumnVector]
    val writer = new KeyValueFileWriter(settings, bucketDir, fields, keyIndices, level, FileSource.Compact)
    try {
      var more = true
      while (more) {
        selection.size = 0
        more = merge.fill(selection)
        if (selection.size > 0) {
          columns.indices.foreach(c => columns(c).gatherFrom(runs, c))
          writer.write(input, selection.size)
        }
      }
      writer.finish()
    } catch {
      case e: Throwable =>
        writer.abort()
        throw e
    } finally runs.foreach(_.close())
  }
}

object Compactor {
  /** Rows a batch merge gathers before writing them. */
  private val BatchSize = 4096
}

/** What a compaction changed in a bucket: files removed, files added, and changelog files written. */
final case class CompactOutcome(removed: Seq[DataFileMeta], added: Seq[DataFileMeta], changelog: Seq[DataFileMeta] = Nil)

/**
 * How a compaction writes a changelog ([[LookupChangelog]]): into files of `files` settings, with
 * versions below `settledLevel` new, looking keys up in the bucket's runs outside the compaction.
 */
final case class ChangelogSettings(files: DataFileSettings, settledLevel: Int, rowDeduplicate: Boolean,
    ignoredColumns: Set[String])
