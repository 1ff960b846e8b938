package paimonspark.spark.read

import java.util.OptionalLong

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException
import paimonspark.format.SparkTypes
import paimonspark.table.{FileStoreTable, Predicate}

/**
 * A batch scan of an append table's latest snapshot. Files are read by Spark's own Parquet
 * reader (vectorized where it can be), with partition values taken from the manifests, not from
 * the files. Output columns are the required data columns followed by the required partition
 * columns, the order the Parquet reader produces.
 */
final class PaimonScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate])
    extends Scan with Batch with SupportsReportStatistics {

  private val schema = table.schema
  private val partitionNames = schema.partitionKeys.toSet
  private val dataSchema = SparkTypes.physical(SparkTypes.toSparkStruct(schema.nonPartitionFields, withFieldIds = false))
  private val readDataSchema = StructType(required.filterNot(f => partitionNames.contains(f.name)))
  private val readPartitionSchema = StructType(required.filter(f => partitionNames.contains(f.name)))
  private val partitionPositions = readPartitionSchema.map(f => schema.partitionKeys.indexOf(f.name))

  private lazy val splits = table.newScan().plan(table.snapshotManager.latest(), predicate)

  override def readSchema(): StructType = StructType(readDataSchema ++ readPartitionSchema)

  override def toBatch: Batch = this

  override def description(): String =
    s"PaimonScan ${table.location} [${readSchema().fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  override def estimateStatistics(): Statistics = new Statistics {
    override def sizeInBytes(): OptionalLong = OptionalLong.of(splits.flatMap(_.files).map(_.fileSize).sum)
    override def numRows(): OptionalLong = OptionalLong.of(splits.flatMap(_.files).map(_.rowCount).sum)
  }

  override def planInputPartitions(): Array[InputPartition] = {
    val spark = SparkSession.active
    val files = splits.flatMap { split =>
      val values = new GenericInternalRow(partitionPositions.map(p => split.partition.values(p)).toArray[Any])
      split.files.map { f =>
        if (!f.fileName.endsWith(".parquet")) {
          throw new UnsupportedFeatureException(s"table ${table.location}: data file ${f.fileName} is not Parquet; " +
            "only Parquet data files can be read yet")
        }
        (values, table.dataFilePath(split.partitionBytes, split.bucket, f), f.fileSize)
      }
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
