package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.SupportsAtomicPartitionManagement
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.scan.{DataSplit, ScanPlanner}
import paimonspark.table.write.OverwriteScope

/**
 * Partition DDL as Paimon's filesystem catalog has it. A partition exists through its live files
 * alone: `SHOW PARTITIONS` lists the partitions that hold some; `ALTER TABLE ... DROP PARTITION` and
 * `TRUNCATE TABLE ... PARTITION` remove their files in one OVERWRITE commit without reading or
 * writing data; `ADD PARTITION` records nothing (Paimon only records partitions in a metastore).
 */
trait PartitionManagement extends SupportsAtomicPartitionManagement {
  def store: FileStoreTable

  /** Fails when the table cannot be written (read as of a point in history). */
  protected def writable(): Unit

  /** One OVERWRITE commit removing the files in `scope`. */
  protected def dropFiles(scope: OverwriteScope): Unit

  private lazy val partitionStruct: StructType = SparkSchemas.partitionSchema(store.schema)

  override def partitionSchema(): StructType = partitionStruct

  override def listPartitionIdentifiers(names: Array[String], ident: InternalRow): Array[InternalRow] = {
    // Partition values are exact statistics: the planner keeps exactly the matching partitions.
    splits(matching(names.toSeq, ident)).map(_.partition).distinctBy(_.values.toSeq)
      .map(p => InternalRow.fromSeq(p.values.toSeq)).toArray
  }

  override def loadPartitionMetadata(ident: InternalRow): util.Map[String, String] = {
    val files = splits(matching(partitionStruct.fieldNames.toSeq, ident)).flatMap(_.files)
    if (files.isEmpty) Map.empty[String, String].asJava
    else Map("recordCount" -> files.map(_.rowCount).sum.toString, "fileSizeInBytes" -> files.map(_.fileSize).sum.toString,
      "fileCount" -> files.size.toString,
      "lastFileCreationTime" -> files.flatMap(_.creationTimeMillis).maxOption.fold("")(_.toString)).asJava
  }

  override def createPartitions(idents: Array[InternalRow], properties: Array[util.Map[String, String]]): Unit =
    writable()

  override def dropPartitions(idents: Array[InternalRow]): Boolean = truncatePartitions(idents)

  override def truncatePartition(ident: InternalRow): Boolean = truncatePartitions(Array(ident))

  override def truncatePartitions(idents: Array[InternalRow]): Boolean = {
    writable()
    val names = partitionStruct.fieldNames.toSeq
    dropFiles(OverwriteScope.Matching(idents.toSeq.flatMap(matching(names, _)).reduce(Predicate.Or)))
    true
  }

  override def replacePartitionMetadata(ident: InternalRow, properties: util.Map[String, String]): Unit =
    throw new UnsupportedFeatureException(s"table ${name()}: partitions have no properties of their own to set")

  /** The partitions whose `names` columns hold `ident`'s values, as a filter; None for no columns. */
  private def matching(names: Seq[String], ident: InternalRow): Option[Predicate] = {
    names.zipWithIndex.map { case (n, i) =>
      val field = store.schema.fieldNames.indexOf(n)
      if (ident.isNullAt(i)) Predicate.IsNull(field)
      else Predicate.Compare(Predicate.Eq, field, ident.get(i, partitionStruct(n).dataType))
    }.reduceOption[Predicate](Predicate.And)
  }

  private def splits(filter: Option[Predicate]): Seq[DataSplit] =
    ScanPlanner.forMetadata(store).plan(store.currentSnapshot(), filter)
}
