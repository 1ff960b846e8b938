package paimonspark.table.compact

import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.format.DataFileReader
import paimonspark.format.metadata.{DataFileMeta, DeletionFile, FileKind, FileSource, ManifestEntry, Snapshot}
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.scan.ScanPlanner
import paimonspark.table.write.{AppendBuckets, AppendVectors, AppendWriter, TableCommit}

/**
 * Small files of one partition of an append table, to be rewritten together in this order, less
 * the rows their deletion vectors mark (planned from `snapshot`).
 */
final case class AppendCompactTask(partition: Array[Byte], bucket: Int, files: Seq[DataFileMeta],
    deletionFiles: Map[String, DeletionFile] = Map.empty, snapshot: Option[Long] = None, totalBuckets: Int = -1) {
  // Bucket-unaware tables record their one bucket as 0 and the bucket count as -1.
  def replaced: Seq[ManifestEntry] = files.map(ManifestEntry(FileKind.Delete, partition, bucket, totalBuckets, _))

  /** Where the rewritten rows go: the same bucket, numbered on from the first file's smallest sequence number. */
  def output: AppendBuckets = {
    val first = files.head.minSequenceNumber
    if (totalBuckets > 0) AppendBuckets.One(bucket, totalBuckets, first) else AppendBuckets.Unaware(first)
  }
}

/** What one task wrote for an [[AppendCompactTask]]. */
final case class AppendCompactResult(task: AppendCompactTask, added: Seq[ManifestEntry])

/**
 * Small-file compaction of an append table, as Paimon does it for bucket-unaware tables: the driver
 * plans groups of small files per partition ([[AppendCompactPicker]]), executors rewrite each group
 * into files rolled at `target-file-size`, and the driver commits every result as one COMPACT
 * snapshot. There is no full compaction: Paimon plans append tables the same way whatever the
 * compaction strategy.
 */
object AppendCompaction {

  /**
   * The groups to rewrite at snapshot `latest` in the partitions matching `filter`, and only those in
   * `partitions` when given; with `rewriteAll`, every file (`compaction.force-rewrite-all-files` in a
   * full compaction).
   */
  def plan(table: FileStoreTable, latest: Option[Snapshot], filter: Option[Predicate],
      partitions: Option[Set[ByteBuffer]] = None, rewriteAll: Boolean = false): Seq[AppendCompactTask] = {
    val picker = AppendCompactPicker.of(table.options)
    new ScanPlanner(table, appliesDeletionVectors = table.options.deletionVectors).plan(latest, filter)
      .filter(split => partitions.forall(_.contains(ByteBuffer.wrap(split.partitionBytes))))
      .flatMap { split =>
        // Another engine's ORC or Avro files cannot be read here, so they stay as they are; in a
        // bucketed table they keep the files around them in place, as only neighbours are merged.
        val readable = (f: DataFileMeta) => f.fileName.endsWith(".parquet")
        val inOrder = split.files.sortBy(_.minSequenceNumber)
        val groups = if (rewriteAll) picker.all(inOrder.filter(readable))
          else if (split.totalBuckets > 0) picker.pickInOrder(inOrder, readable)
          else picker.pick(split.files.filter(readable))
        groups.map { files =>
          val names = files.map(_.fileName).toSet
          AppendCompactTask(split.partitionBytes, split.bucket, files, split.deletionFiles.filter(d => names(d._1)),
            latest.map(_.id), split.totalBuckets)
        }
      }
  }

  /**
   * Runs one task on an executor: the files' rows, file after file, go into new level-0 files marked
   * as compaction output, numbered on from the first file's smallest sequence number as Paimon does.
   */
  def run(table: FileStoreTable, task: AppendCompactTask, reader: DataFileReader): AppendCompactResult = {
    val writer = new AppendWriter(table, FileSource.Compact, task.output)
    val vectors = DeletionFile.readAll(table.io, task.deletionFiles)
    try {
      task.files.foreach { file =>
        val rows = reader.open(table.dataFilePath(task.partition, task.bucket, file), file.fileSize, file.schemaId)
        try vectors.get(file.fileName).fold[Iterator[InternalRow]](rows)(_.live(rows)).foreach(writer.write)
        finally rows.close()
      }
      AppendCompactResult(task, writer.finish())
    } catch {
      case e: Throwable =>
        writer.abort()
        throw e
    }
  }

  /**
   * Commits the results as one COMPACT snapshot. A concurrent compaction that removed one of the
   * rewritten files makes it fail with a conflict, and the new files are deleted again; appends
   * committed meanwhile do not conflict. The vectors of rewritten files leave their partition's
   * index; a statement that marked rows of the partition since the plan is a conflict.
   */
  def commit(table: FileStoreTable, commitUser: String, results: Seq[AppendCompactResult]): Option[Long] = {
    val withVectors = results.map(_.task).filter(_.deletionFiles.nonEmpty)
    val index = withVectors.headOption.toSeq.flatMap { first =>
      val vectors = new AppendVectors(table, first.snapshot.flatMap(table.snapshotManager.readIfExists))
      withVectors.groupBy(t => ByteBuffer.wrap(t.partition)).values.flatMap { tasks =>
        vectors.rewrite(tasks.head.partition, Map.empty, tasks.flatMap(_.files.map(_.fileName)).toSet)
      }
    }
    new TableCommit(table, commitUser).compact(results.flatMap(_.task.replaced), results.flatMap(_.added), index = index)
  }
}
