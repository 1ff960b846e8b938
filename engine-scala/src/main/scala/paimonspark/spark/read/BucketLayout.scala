package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.Expressions
import org.apache.spark.sql.connector.read.{HasPartitionKey, InputPartition}
import org.apache.spark.sql.connector.read.partitioning.{KeyGroupedPartitioning, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import paimonspark.table.{BucketFunctionType, FileStoreTable, KeyLayout}
import paimonspark.table.scan.DataSplit

/**
 * The layout a scan of a fixed-bucket primary-key table reports to Spark: rows grouped by
 * `bucket(buckets, key)`, Paimon's bucket function as the catalog offers it
 * ([[paimonspark.spark.catalog.BucketFunction]]). Spark then plans a join or an aggregation on the
 * bucket key without a shuffle (storage-partitioned join), grouping the tasks of each bucket into one.
 */
final case class BucketLayout(buckets: Int, key: String) {
  def partitioning(tasks: Int): Partitioning =
    new KeyGroupedPartitioning(Array(Expressions.bucket(buckets, s"`${key.replace("`", "``")}`")), tasks)
}

object BucketLayout {
  /**
   * The layout of a scan of `splits` whose output is `output`, when it is true and Spark can use it:
   * a table with a fixed bucket count (primary-key or bucketed append) under Paimon's default bucket function, every
   * split written with the same count (a partition keeps its count until rescaled), and a bucket
   * key of one column the scan outputs (Spark's `bucket` transform takes one column). Not while
   * Spark ignores reported layouts (`spark.sql.sources.v2.bucketing.enabled`): packing each bucket
   * apart would then cost tasks for nothing.
   */
  def of(table: FileStoreTable, splits: Seq[DataSplit], output: StructType): Option[BucketLayout] = {
    val options = table.options
    if (!SQLConf.get.v2BucketingEnabled || options.bucket <= 0 ||
      BucketFunctionType.of(options) != BucketFunctionType.Default) None
    else {
      val counts = splits.map(s => if (s.totalBuckets > 0) s.totalBuckets else options.bucket).distinct
      KeyLayout.of(table.location.toString, table.schema).bucketKeys match {
        case Seq(key) if counts.size <= 1 && output.fieldNames.contains(key) =>
          Some(BucketLayout(counts.headOption.getOrElse(options.bucket), key))
        case _ => None
      }
    }
  }

  val Unreported: Partitioning = new UnknownPartitioning(0)
}

/** A task of a scan that reports its [[BucketLayout]]: pieces of one bucket only, keyed by it. */
final case class BucketTask(bucket: Int, task: InputPartition) extends HasPartitionKey {
  override def partitionKey(): InternalRow = InternalRow(bucket)
  override def preferredLocations(): Array[String] = task.preferredLocations()
}
