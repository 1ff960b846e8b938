package paimonspark.table.compact

import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}

import paimonspark.format.{DataFileReader, SparkTypes, TablePaths}
import paimonspark.format.metadata.{DataFileMeta, FileKind, ManifestEntry}
import paimonspark.lsm.KeyValue
import paimonspark.table.{FileStoreTable, Predicate, TableOptions}
import paimonspark.table.scan.ScanPlanner
import paimonspark.table.write.{Bucketing, PrimaryKeyWriter, RowBucketer, TableCommit, WriteRestore, WrittenFiles}

/** The postpone bucket of one partition, whose rows go into `buckets` real buckets. */
final case class PostponeTask(partition: Array[Byte], files: Seq[DataFileMeta], buckets: Int)

/**
 * The first step of compacting a postpone-bucket table (`bucket` = -2), as Paimon's: the rows of each
 * partition's postpone bucket are written into real buckets, as many as the partition's files already
 * have, else `postpone.default-bucket-num` (Spark's parallelism when the table does not set it), and
 * the postpone files leave in the same COMPACT commit. Every version of a key goes over with its kind,
 * in sequence order, numbered after what the bucket holds, so the table's merge engine merges them
 * with the bucket's rows exactly as it would have merged them there.
 */
object PostponeCompaction {
  /** The tasks of the partitions matching `filter`; `restored` knows each partition's bucket count. */
  def plan(table: FileStoreTable, filter: Option[Predicate], parallelism: Int, restored: WriteRestore): Seq[PostponeTask] = {
    val known = restored.partitionBuckets
    val default = table.options.postponeDefaultBucketNum.getOrElse(parallelism)
    ScanPlanner.forMetadata(table).plan(table.snapshotManager.latest(), filter)
      .filter(_.bucket == TablePaths.PostponeBucket)
      .map(s => PostponeTask(s.partitionBytes, s.files.sortBy(f => (f.minSequenceNumber, f.maxSequenceNumber)),
        known.getOrElse(RowBucketer.partitionKey(s.partitionBytes), default)))
  }

  /** Runs one task on an executor; `reader` reads key-value files as compaction does. */
  def run(table: FileStoreTable, task: PostponeTask, restored: WriteRestore, reader: DataFileReader): WrittenFiles = {
    // The rows were a write's already: moving them produces no changelog of its own.
    val target = table.withDynamicOptions(Map(TableOptions.Bucket -> task.buckets.toString,
      TableOptions.ChangelogProducerKey -> "none"))
    val writer = new PrimaryKeyWriter(target, restored, Bucketing.Fixed(task.buckets))
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(table.schema.fields, withFieldIds = false))
    val values = UnsafeProjection.create(columns.indices.map(i => BoundReference(i + 2, columns(i).dataType, nullable = true)))
    try {
      task.files.foreach { file =>
        val rows = reader.open(table.dataFilePath(task.partition, TablePaths.PostponeBucket, file), file.fileSize, file.schemaId)
        try rows.foreach(kv => writer.write(values(kv), KeyValue.kind(kv)))
        finally rows.close()
      }
      writer.finish()
    } catch {
      case e: Throwable =>
        writer.abort()
        throw e
    }
  }

  def commit(table: FileStoreTable, commitUser: String, tasks: Seq[PostponeTask], written: Seq[WrittenFiles]): Option[Long] =
    new TableCommit(table, commitUser).compact(
      tasks.flatMap(t => t.files.map(ManifestEntry(FileKind.Add, t.partition, TablePaths.PostponeBucket,
        TablePaths.PostponeBucket, _))),
      written.flatMap(_.data))
}
