package paimonspark.spark.read

import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Add, BoundReference, Coalesce, Expression, GenericInternalRow, JoinedRow,
  UnsafeProjection}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{LongType, StructType}

import paimonspark.format.{DataField, RowTrackingFields, SparkTypes}
import paimonspark.format.metadata.{DataFileMeta, TableSchema}
import paimonspark.table.{FileStoreTable, Predicate}

/**
 * The scan of `t$row_tracking`: an append table's rows with Paimon's row-tracking columns
 * ([[RowTrackingFields]]), filled in as Paimon's `DataFileRecordReader` fills them. Each file is read
 * whole, with its rows' positions (deleted rows counted) and no filter that skips rows; a row's
 * `_ROW_ID` is the one its file holds, else the file's first row id plus its position, and its
 * `_SEQUENCE_NUMBER` the one its file holds, else the file's max sequence number.
 */
final class RowTrackingScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate])
    extends TableScan(table, required, predicate) {

  override def description(): String =
    s"RowTrackingScan ${table.location} [${readSchema().fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  override protected def appliesDeletionVectors: Boolean = true
  override protected def readsWholeFiles: Boolean = true

  override protected def fileMetadata(file: DataFileMeta): Map[String, Any] =
    Map(RowTrackingReaderFactory.FirstRowIdKey -> file.firstRowId.map(Long.box).orNull,
      RowTrackingReaderFactory.MaxSequenceKey -> file.maxSequenceNumber)

  override protected def readDataFields: Seq[DataField] =
    SparkTypes.prune(RowTrackingFields.fileFields(schema.fields), readDataSchema)

  override def planInputPartitions(): Array[InputPartition] =
    filePartitions(splits.flatMap(split => split.files.map(split -> _))).toArray

  override protected def readerFactory(): PartitionReaderFactory = {
    val partitions = SparkTypes.physical(readPartitionSchema)
    val fileFields = (s: TableSchema) => RowTrackingFields.fileFields(s.fields)
    val files = new SchemaRoutingFactory(SchemaReaders.build(table, readDataFields, fileFields, partitions, Nil, plannedSchemas),
      positions = true)
    new RowTrackingReaderFactory(files, StructType(SparkTypes.physical(readDataSchema) ++ partitions))
  }
}

/**
 * Rows of `files` (the `output` columns, then the row's position in its file) as `output`, their
 * row-tracking columns filled in from the position and the file's [[RowTrackingReaderFactory.FirstRowIdKey]]
 * and [[RowTrackingReaderFactory.MaxSequenceKey]] where the file holds no value. Row by row: the system
 * table is for looking rows up, not for scanning at columnar speed.
 */
final class RowTrackingReaderFactory(files: SchemaRoutingFactory, output: StructType) extends FilePartitionReaderFactory {
  import RowTrackingReaderFactory._

  // Each row is read joined with its file's values: the position, then the first row id and max sequence number.
  private val (position, firstRowId, maxSequence) = (output.length, output.length + 1, output.length + 2)
  private val columns: Seq[Expression] = output.fields.toSeq.zipWithIndex.map { case (field, i) =>
    val stored = BoundReference(i, field.dataType, nullable = true)
    field.name match {
      case RowTrackingFields.RowId.name =>
        Coalesce(Seq(stored, Add(BoundReference(firstRowId, LongType, nullable = true),
          BoundReference(position, LongType, nullable = false))))
      case RowTrackingFields.SequenceNumber.name => Coalesce(Seq(stored, BoundReference(maxSequence, LongType, nullable = false)))
      case _ => stored
    }
  }

  override def options: FileSourceOptions = files.options
  override def supportColumnarReads(partition: InputPartition): Boolean = false

  @transient private lazy val projection = UnsafeProjection.create(columns)

  override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] = {
    val rows = files.buildReader(file)
    val values = file.otherConstantMetadataColumnValues
    val fileValues = new GenericInternalRow(Array[Any](values(FirstRowIdKey), values(MaxSequenceKey)))
    val joined = new JoinedRow()
    new PartitionReader[InternalRow] {
      override def next(): Boolean = rows.next()
      override def get(): InternalRow = projection(joined(rows.get(), fileValues))
      override def close(): Unit = rows.close()
    }
  }
}

object RowTrackingReaderFactory {
  /** Where a [[PartitionedFile]] carries its file's `_FIRST_ROW_ID` (null for files holding their rows' ids). */
  val FirstRowIdKey = "paimon.first-row-id"
  /** Where a [[PartitionedFile]] carries its file's max sequence number. */
  val MaxSequenceKey = "paimon.max-sequence-number"
}
