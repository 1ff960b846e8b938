package paimonspark.spark.read

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.SparkSession

import paimonspark.table.FileStoreTable
import paimonspark.table.scan.SplitPacking

/**
 * How the reads of a table pack their tasks, as Paimon's Spark connector decides it: the split
 * options of the read or the table (`source.split.target-size`, `source.split.open-file-cost`),
 * else Spark's file-source settings where the session sets them
 * (`spark.sql.files.maxPartitionBytes`, `spark.sql.files.openCostInBytes`), else Paimon's defaults.
 * A small read still spreads over `spark.sql.files.minPartitionNum` tasks, else
 * `spark.sql.leafNodeDefaultParallelism`, else one per core.
 */
object ReadPacking {
  def of(table: FileStoreTable): SplitPacking = {
    val spark = SparkSession.active
    val conf = spark.sessionState.conf
    def setInSession(key: String): Option[String] = if (conf.contains(key)) Some(conf.getConfString(key)) else None
    val options = table.options
    val target = options.splitTargetSizeSet.orElse(setInSession("spark.sql.files.maxPartitionBytes").map(bytes))
      .getOrElse(SplitPacking.DefaultTargetSize)
    val openCost = options.splitOpenFileCostSet.orElse(setInSession("spark.sql.files.openCostInBytes").map(bytes))
      .getOrElse(SplitPacking.DefaultOpenFileCost)
    val minTasks = conf.filesMinPartitionNum
      .orElse(setInSession("spark.sql.leafNodeDefaultParallelism").map(_.trim.toInt))
      .getOrElse(spark.sparkContext.defaultParallelism)
    SplitPacking(target, openCost, minTasks)
  }

  private def bytes(size: String): Long = JavaUtils.byteStringAsBytes(size)
}
