package paimonspark.lsm

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.StructType

import paimonspark.format.{DataField, DataFileMeta, DataFileReader, FileSource, SparkTypes}

/**
 * Runs one [[CompactUnit]] of a bucket as Paimon does: [[CompactSteps]] decides which files are
 * merged and which only move up to the output level. Merged files are read as sorted runs (each
 * level-0 file alone, each higher level as its files in key order, opened one at a time), folded by
 * the table's merge engine and written as new files at the unit's output level. Retractions are
 * dropped only when nothing older can lie below the output (`dropRetractions`).
 */
final class Compactor(
    settings: DataFileSettings,
    fields: Seq[DataField],
    keyIndices: Seq[Int],
    partitionIndices: Seq[Int],
    spec: MergeEngineSpec,
    reader: DataFileReader,
    maxLevel: Int,
    minFileSize: Long) {

  private val rowSchema = StructType(KeyValue.SystemFields ++
    SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false)).fields)
  private val keyRanges = new KeyRanges(keyIndices.map(fields(_).dataType))
  private val keyOrdering = GenerateOrdering.generate(keyIndices.map { i =>
    SortOrder(BoundReference(i + 2, rowSchema(i + 2).dataType, nullable = false), Ascending)
  })

  /**
   * Carries out `unit` in `bucketDir`: the files the bucket loses and those it gains (an upgraded
   * file is in both, at its old and its new level). On failure the new files are deleted again.
   */
  def compact(bucketDir: Path, unit: CompactUnit, dropRetractions: Boolean): CompactOutcome = {
    val steps = CompactSteps(unit.outputLevel, maxLevel, minFileSize).plan(keyRanges.sections(unit.files))
    val written = ArrayBuffer.empty[DataFileMeta]
    try {
      val added = steps.map {
        case CompactStep.Upgrade(file) => Seq(file.copy(level = unit.outputLevel))
        case CompactStep.Rewrite(files) =>
          val merged = rewrite(bucketDir, files, unit.outputLevel, dropRetractions)
          written ++= merged
          merged
      }
      val removed = steps.flatMap {
        case CompactStep.Upgrade(file) => Seq(file)
        case CompactStep.Rewrite(files) => files
      }
      CompactOutcome(removed, added.flatten)
    } catch {
      case e: Throwable =>
        written.foreach(f => settings.io.delete(new Path(bucketDir, f.fileName), recursive = false))
        throw e
    }
  }

  private def rewrite(bucketDir: Path, files: Seq[DataFileMeta], level: Int, dropRetractions: Boolean)
      : Seq[DataFileMeta] = {
    val opened = ArrayBuffer.empty[DataFileReader.Rows]
    def rows(files: Seq[DataFileMeta]): Iterator[InternalRow] = files.iterator.flatMap { f =>
      val r = reader.open(new Path(bucketDir, f.fileName), f.fileSize)
      opened += r
      r
    }
    val runs = SortedRun.of(files).map(run => rows(if (run.level == 0) run.files else keyRanges.byMinKey(run.files)))
    val engine = spec.create(rowSchema, (keyIndices ++ partitionIndices).map(_ + 2))
    val merged = new SortedRunMerge(runs, keyOrdering, engine, spec.versionOrdering(rowSchema), dropRetractions,
      integralKey = IntegralKey.of(rowSchema, keyIndices.map(_ + 2)))
    val writer = new KeyValueFileWriter(settings, bucketDir, fields, keyIndices, level, FileSource.Compact)
    try {
      merged.foreach(writer.write)
      writer.finish()
    } catch {
      case e: Throwable =>
        writer.abort()
        throw e
    } finally opened.foreach(_.close())
  }
}

/** What a compaction changed in a bucket: files removed and files added, as data file metas. */
final case class CompactOutcome(removed: Seq[DataFileMeta], added: Seq[DataFileMeta])
