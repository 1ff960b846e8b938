package paimonspark.spark

import java.util.UUID

import org.apache.spark.sql.SparkSession

import paimonspark.spark.read.ParquetKeyValueReader
import paimonspark.table.{FileStoreTable, Predicate, TableCompaction}

/** Compacts a primary-key table as a Spark job: one task per bucket to compact, one COMPACT commit. */
object CompactJob {
  /** Returns the COMPACT snapshot's id, or None when no bucket needed compacting. */
  def run(table: FileStoreTable, filter: Option[Predicate], full: Boolean, buckets: Option[Set[String]] = None)
      : Option[Long] = {
    val tasks = TableCompaction.plan(table, filter, full, buckets)
    if (tasks.isEmpty) return None
    val reader = ParquetKeyValueReader.forCompaction(table)
    val context = SparkSession.active.sparkContext
    context.setJobDescription(s"paimon compact ${table.location} (${tasks.size} buckets)")
    val results = try context.parallelize(tasks, tasks.size).map(TableCompaction.run(table, _, reader)).collect()
    finally context.setJobDescription(null)
    TableCompaction.commit(table, UUID.randomUUID().toString, results.toSeq)
  }
}
