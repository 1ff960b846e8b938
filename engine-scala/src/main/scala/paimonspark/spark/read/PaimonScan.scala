package paimonspark.spark.read

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.format.SparkTypes
import paimonspark.table.{FileStoreTable, Predicate}

/**
 * A batch scan of an append table. Files are read by Spark's own Parquet reader (vectorized where
 * it can be), split and packed into partitions the way Spark's file sources do.
 */
final class PaimonScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate])
    extends TableScan(table, required, predicate) {

  private val dataSchema = SparkTypes.physical(SparkTypes.toSparkStruct(schema.nonPartitionFields, withFieldIds = false))

  override def description(): String =
    s"PaimonScan ${table.location} [${readSchema().fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  override def planInputPartitions(): Array[InputPartition] = {
    val spark = SparkSession.active
    val files = splits.flatMap { split =>
      val values = partitionValues(split)
      split.files.map(f => (values, dataFilePath(split, f), f.fileSize))
    }
    val conf = spark.sessionState.conf
    val totalBytes = files.map(_._3 + conf.filesOpenCostInBytes).sum
    val bytesPerCore = totalBytes / math.max(1, spark.sparkContext.defaultParallelism)
    val maxSplit = math.min(conf.filesMaxPartitionBytes, math.max(conf.filesOpenCostInBytes, bytesPerCore))
    val pieces = files.flatMap { case (values, path, size) =>
      (0L until size by maxSplit).map { start =>
        PartitionedFile(values, SparkPath.fromPath(path), start, math.min(maxSplit, size - start),
          Array.empty[String], 0L, size, Map.empty)
      }
    }
    FilePartition.getFilePartitions(spark, pieces.sortBy(-_.length), maxSplit).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = {
    val dataFilters = filters.filter(_.references.forall(a => !partitionNames.contains(a)))
    ParquetReaders.factory(table.io.hadoopConf.value, dataSchema, SparkTypes.physical(readDataSchema),
      SparkTypes.physical(readPartitionSchema), dataFilters)
  }
}
