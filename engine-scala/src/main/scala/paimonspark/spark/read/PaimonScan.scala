package paimonspark.spark.read

import org.apache.spark.sql.connector.expressions.{Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.{Predicate => V2Predicate}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.format.SparkTypes
import paimonspark.format.metadata.DataFileMeta
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.scan.DataSplit

/**
 * A batch scan of an append table. Files are read by Spark's own Parquet reader (vectorized where
 * it can be), split and packed into partitions the way Spark's file sources do.
 */
final class PaimonScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate],
    fileFilter: DataFileMeta => Boolean = _ => true, buckets: Option[Set[String]] = None)
    extends TableScan(table, required, predicate, buckets, fileFilter) with SupportsRuntimeV2Filtering {

  override def description(): String =
    s"PaimonScan ${table.location} [${readSchema().fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  override protected def appliesDeletionVectors: Boolean = true

  override def planInputPartitions(): Array[InputPartition] =
    tasksPerBucket(splits, identity[DataSplit])(s => filePartitions(s.flatMap(split => split.files.map(split -> _)))).toArray

  override protected def readerFactory(): PartitionReaderFactory = {
    // Deletion vectors and row positions count rows in a file: readers that skip row groups would lose count.
    val dataFilters = if (hasDeletionVectors || readsRowIndex) Nil
      else filters.filter(_.references.forall(a => !partitionNames.contains(a)))
    val appended = SparkTypes.physical(readPartitionSchema) ++ (if (readsFilePath) Seq(FilePathColumn.field) else Nil)
    new SchemaRoutingFactory(SchemaReaders.build(table, readDataFields, SchemaReaders.appendFields,
      StructType(appended), dataFilters, plannedSchemas), positions = readsRowIndex)
  }

  /**
   * Run-time filters on the file path: Spark's group filter of a copy-on-write statement, listing
   * the files that hold a row it changes, so only those are read, rewritten and replaced.
   */
  override def filterAttributes(): Array[NamedReference] =
    if (readsFilePath) Array(FilePathColumn.reference) else Array.empty

  override def filter(predicates: Array[V2Predicate]): Unit = predicates.foreach { p =>
    val onPath = p.children().headOption.exists {
      case r: NamedReference => r.fieldNames().sameElements(Array(FilePathColumn.Name))
      case _ => false
    }
    val values = p.children().drop(1).collect { case l: Literal[_] if l.value() != null => l.value().toString }
    // Anything else is not understood and keeps every file: Spark filters the rows again.
    if (onPath && values.length == p.children().length - 1 && Set("IN", "=").contains(p.name())) keepFiles(values.toSet)
  }
}
