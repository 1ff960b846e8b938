package paimonspark.spark.write

import java.nio.ByteBuffer
import java.util.UUID

import scala.reflect.ClassTag

import org.apache.spark.sql.SparkSession

import paimonspark.format.TablePaths
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
    if (!table.isPrimaryKeyTable) compactAppendTable(table, filter, None, rewriteAll = full && table.options.forceRewriteAllFiles)
    else {
      val assigned = if (table.options.bucket == TablePaths.PostponeBucket) assignPostponed(table, filter) else None
      val tasks = TableCompaction.plan(table, filter, full, buckets)
      if (tasks.isEmpty) assigned
      else {
        val reader = SparkFileReader.forCompaction(table)
        val results = runTasks(table, s"${tasks.size} buckets", tasks)(TableCompaction.run(table, _, reader))
        TableCompaction.commit(table, UUID.randomUUID().toString, results).orElse(assigned)
      }
    }
  }

  /** A postpone-bucket table's postpone rows moved into real buckets, one task per partition. */
  private def assignPostponed(table: FileStoreTable, filter: Option[Predicate]): Option[Long] = {
    val restored = WriteRestore.of(table)
    val tasks = PostponeCompaction.plan(table, filter, SparkSession.active.sparkContext.defaultParallelism, restored)
    if (tasks.isEmpty) None
    else {
      val reader = SparkFileReader.forCompaction(table)
      val written = runTasks(table, s"the postpone bucket of ${tasks.size} partitions", tasks)(
        PostponeCompaction.run(table, _, restored, reader))
      PostponeCompaction.commit(table, UUID.randomUUID().toString, tasks, written)
    }
  }

  /**
   * Small-file compaction of an append table's partitions matching `filter`, and in `partitions` when
   * given; with `rewriteAll`, of every file there.
   */
  def compactAppendTable(table: FileStoreTable, filter: Option[Predicate], partitions: Option[Set[ByteBuffer]],
      rewriteAll: Boolean = false): Option[Long] = {
    val tasks = AppendCompaction.plan(table, filter, partitions, rewriteAll)
    if (tasks.isEmpty) None
    else {
      val reader = SparkFileReader.forCompaction(table)
      val results = runTasks(table, s"${tasks.size} groups of small files", tasks)(AppendCompaction.run(table, _, reader))
      AppendCompaction.commit(table, UUID.randomUUID().toString, results)
    }
  }

  private def runTasks[T: ClassTag, R: ClassTag](table: FileStoreTable, what: String, tasks: Seq[T])(work: T => R)
      : Seq[R] = {
    val context = SparkSession.active.sparkContext
    context.setJobDescription(s"paimon compact ${table.location} ($what)")
    try context.parallelize(tasks, tasks.size).map(work).collect().toSeq
    finally context.setJobDescription(null)
  }
}
