package paimonspark.spark.write

import java.nio.ByteBuffer
import java.util.UUID

import scala.reflect.ClassTag

import org.apache.spark.sql.SparkSession

import paimonspark.format.TablePaths
import paimonspark.format.metadata.Snapshot
import paimonspark.spark.read.SparkFileReader
import paimonspark.table.{FileStoreTable, Predicate, TableFeatures}
import paimonspark.table.compact.{AppendCompaction, PostponeCompaction, TableCompaction}
import paimonspark.table.write.WriteRestore

/**
 * Compacts a table as a Spark job and commits one COMPACT snapshot. Primary-key tables: one task per
 * bucket to compact. Append tables: one task per group of small files (usually one per partition).
 */
object CompactJob {
  /**
   * Returns the COMPACT snapshot's id, or None when nothing needed compacting. `full` and `buckets`
   * only concern primary-key tables: Paimon compacts append tables the same way in either strategy.
   */
  def run(table: FileStoreTable, filter: Option[Predicate], full: Boolean, buckets: Option[Set[String]] = None)
      : Option[Long] = {
    TableFeatures.requireWritable(table)
    if (!table.isPrimaryKeyTable) {
      compactAppendTable(table, table.snapshotManager.latest(), filter, None, rewriteAll = full && table.options.forceRewriteAllFiles)
    } else {
      val assigned = if (table.options.bucket == TablePaths.PostponeBucket) assignPostponed(table, filter) else None
      compactBuckets(table, table.snapshotManager.latest(), filter, full, buckets).orElse(assigned)
    }
  }

  /**
   * A write's inline compaction, planned at the `written` snapshot it just committed, which the write
   * checked writable: of the `buckets` it wrote (primary-key tables), or the small files of its
   * `partitions` (append tables).
   */
  def afterWrite(table: FileStoreTable, written: Snapshot, full: Boolean, buckets: Set[String],
      partitions: Set[ByteBuffer]): Option[Long] =
    if (table.isPrimaryKeyTable) compactBuckets(table, Some(written), None, full, Some(buckets))
    else compactAppendTable(table, Some(written), None, Some(partitions))

  private def compactBuckets(table: FileStoreTable, latest: Option[Snapshot], filter: Option[Predicate], full: Boolean,
      buckets: Option[Set[String]]): Option[Long] = {
    val tasks = TableCompaction.plan(table, latest, filter, full, buckets)
    runTasks(table, s"${tasks.size} buckets", tasks)(TableCompaction.run(table, _, _))(
      TableCompaction.commit(table, UUID.randomUUID().toString, _))
  }

  /** A postpone-bucket table's postpone rows moved into real buckets, one task per partition. */
  private def assignPostponed(table: FileStoreTable, filter: Option[Predicate]): Option[Long] = {
    val restored = WriteRestore.of(table)
    val tasks = PostponeCompaction.plan(table, filter, SparkSession.active.sparkContext.defaultParallelism, restored)
    runTasks(table, s"the postpone bucket of ${tasks.size} partitions", tasks)(PostponeCompaction.run(table, _, restored, _))(
      PostponeCompaction.commit(table, UUID.randomUUID().toString, tasks, _))
  }

  /**
   * Small-file compaction of an append table's partitions matching `filter`, and in `partitions` when
   * given; with `rewriteAll`, of every file there.
   */
  private def compactAppendTable(table: FileStoreTable, latest: Option[Snapshot], filter: Option[Predicate],
      partitions: Option[Set[ByteBuffer]], rewriteAll: Boolean = false): Option[Long] = {
    val tasks = AppendCompaction.plan(table, latest, filter, partitions, rewriteAll)
    runTasks(table, s"${tasks.size} groups of small files", tasks)(AppendCompaction.run(table, _, _))(
      AppendCompaction.commit(table, UUID.randomUUID().toString, _))
  }

  /** Runs `tasks` as one job, each with the table's compaction reader, and commits the results; None without tasks. */
  private def runTasks[T: ClassTag, R: ClassTag](table: FileStoreTable, what: String, tasks: Seq[T])(
      work: (T, SparkFileReader) => R)(commit: Seq[R] => Option[Long]): Option[Long] = if (tasks.isEmpty) None else {
    val reader = SparkFileReader.forCompaction(table)
    val context = SparkSession.active.sparkContext
    context.setJobDescription(s"paimon compact ${table.location} ($what)")
    val results = try context.parallelize(tasks, tasks.size).map(work(_, reader)).collect().toSeq
      finally context.setJobDescription(null)
    commit(results)
  }
}
