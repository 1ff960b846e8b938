package paimonspark.spark.read

import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.format.{DataFileMeta, SparkTypes}
import paimonspark.table.{FileStoreTable, Predicate}

/**
 * A batch scan of an append table. Files are read by Spark's own Parquet reader (vectorized where
 * it can be), split and packed into partitions the way Spark's file sources do.
 */
final class PaimonScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate],
    fileFilter: DataFileMeta => Boolean = _ => true, buckets: Option[Set[String]] = None)
    extends TableScan(table, required, predicate, buckets, fileFilter) {

  override def description(): String =
    s"PaimonScan ${table.location} [${readSchema().fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  override def planInputPartitions(): Array[InputPartition] =
    filePartitions(splits.flatMap(split => split.files.map(split -> _))).toArray

  override def createReaderFactory(): PartitionReaderFactory = {
    val dataFilters = filters.filter(_.references.forall(a => !partitionNames.contains(a)))
    new SchemaRoutingFactory(SchemaReaders.build(table, readDataFields, SchemaReaders.appendFields,
      SparkTypes.physical(readPartitionSchema), dataFilters, plannedSchemas))
  }
}
