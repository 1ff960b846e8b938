package paimonspark.lsm

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.StructType

import paimonspark.format.{DataField, DataFileMeta, DataFileReader, FileSource, SparkTypes}

/**
 * Runs one [[CompactUnit]] of a bucket: the picked files are merged as sorted runs (each level-0
 * file alone, each higher level as its files in key order, opened one at a time) by the table's
 * merge engine and written as one run at the unit's output level. Retractions are dropped only
 * when nothing older can lie below the output (`dropRetractions`).
 */
final class Compactor(
    settings: DataFileSettings,
    fields: Seq[DataField],
    keyIndices: Seq[Int],
    partitionIndices: Seq[Int],
    spec: MergeEngineSpec,
    reader: DataFileReader) {

  private val rowSchema = StructType(KeyValue.SystemFields ++
    SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false)).fields)
  private val keyRanges = new KeyRanges(keyIndices.map(fields(_).dataType))
  private val keyOrdering = GenerateOrdering.generate(keyIndices.map { i =>
    SortOrder(BoundReference(i + 2, rowSchema(i + 2).dataType, nullable = false), Ascending)
  })

  /** Writes the merged run into `bucketDir` and returns the new files; on failure they are deleted. */
  def compact(bucketDir: Path, unit: CompactUnit, dropRetractions: Boolean): Seq[DataFileMeta] = {
    val opened = ArrayBuffer.empty[DataFileReader.Rows]
    def rows(files: Seq[DataFileMeta]): Iterator[InternalRow] = files.iterator.flatMap { f =>
      val r = reader.open(new Path(bucketDir, f.fileName), f.fileSize)
      opened += r
      r
    }
    val runs = SortedRun.of(unit.files).map(run => rows(if (run.level == 0) run.files else keyRanges.byMinKey(run.files)))
    val engine = spec.create(rowSchema, (keyIndices ++ partitionIndices).map(_ + 2))
    val merged = new SortedRunMerge(runs, keyOrdering, engine, spec.versionOrdering(rowSchema), dropRetractions,
      integralKey = IntegralKey.of(rowSchema, keyIndices.map(_ + 2)))
    val writer = new KeyValueFileWriter(settings, bucketDir, fields, keyIndices, unit.outputLevel, FileSource.Compact)
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
