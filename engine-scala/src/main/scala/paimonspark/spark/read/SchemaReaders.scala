package paimonspark.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.{DataField, FileView, KeyValueFields, SparkTypes}
import paimonspark.format.metadata.{DeletionFile, DeletionVector, TableSchema}
import paimonspark.table.{FileStoreTable, KeyLayout}

/**
 * A [[LayoutReader]] for each schema the files to read were written with, all giving the same read
 * schema. Schemas laying the read columns out alike share one, so a table whose columns never
 * changed has one reader, as before evolution.
 */
final class SchemaReaders private (bySchema: Map[Long, LayoutReader]) extends Serializable {
  def apply(schemaId: Long): LayoutReader =
    bySchema.getOrElse(schemaId, throw new IllegalStateException(s"no reader was set up for files of schema $schemaId"))

  def columnar: Boolean = bySchema.values.forall(_.columnar)
}

object SchemaReaders {
  /** Where a [[PartitionedFile]] carries the id of the schema its file was written with. */
  val SchemaIdKey = "paimon.schema-id"
  /** Where a [[PartitionedFile]] carries its deletion vector's place ([[paimonspark.format.DeletionFile]]). */
  val DeletionFileKey = "paimon.deletion-file"

  /**
   * Readers, built on the driver, for files of `schemas` read as `read` (fields with their ids;
   * physical types) and then `partitionSchema`. `fileFields` gives the columns a schema's files
   * hold. Filters reach a layout's reader only on columns that are there under the same name and
   * type; Spark evaluates every filter again after the scan.
   */
  def build(table: FileStoreTable, read: Seq[DataField], fileFields: TableSchema => Seq[DataField],
      partitionSchema: StructType, filters: Seq[Filter], schemas: Iterable[TableSchema]): SchemaReaders = {
    val target = struct(read)
    val timeZone = SparkSession.active.sessionState.conf.sessionLocalTimeZone
    val views = schemas.toSeq.map(s => s.id -> FileView.of(read, fileFields(s)))
    val readers = views.map(_._2).distinct.map { view =>
      val requested = struct(view)
      val same = requested.indices.map(i => requested(i) == target(i))
      val kept = if (same.forall(identity)) filters
        else filters.filter(_.references.forall(r => requested.indices.exists(i => same(i) && target(i).name == r)))
      val casts = requested.indices.collect {
        case i if !DataType.equalsStructurally(requested(i).dataType, target(i).dataType, ignoreNullability = true) =>
          i -> PaimonCasts.cast(BoundReference(i, requested(i).dataType, nullable = true), target(i).dataType, timeZone)
      }.toMap
      view -> FormatReaders.layout(table.io, requested, SparkTypes.physical(ParquetTimestamps.requested(view)),
        partitionSchema, kept, casts, table.options.orcLegacyLtz)
    }.toMap
    new SchemaReaders(views.map { case (id, view) => id -> readers(view) }.toMap)
  }

  /** The columns of a primary-key table's data files of `schema`: key, system and value columns. */
  def keyValueFields(table: String)(schema: TableSchema): Seq[DataField] =
    KeyValueFields.fileFields(KeyLayout.of(table, schema).trimmedKeys.map(schema.field), schema.fields)

  /** The columns of an append table's data files of `schema`: all of them. */
  def appendFields(schema: TableSchema): Seq[DataField] = schema.fields

  private def struct(fields: Seq[DataField]): StructType =
    SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false))
}

/**
 * Spark's reading of file partitions (file after file, with input-file bookkeeping), each file by
 * the reader of the schema it was written with, which its [[SchemaReaders.SchemaIdKey]] metadata
 * records; with `positions`, each row's position in its file is appended ([[RowPositions]]).
 */
final class SchemaRoutingFactory(readers: SchemaReaders, positions: Boolean = false) extends FilePartitionReaderFactory {
  override def options: FileSourceOptions = new FileSourceOptions(CaseInsensitiveMap(Map.empty[String, String]))
  override def supportColumnarReads(partition: InputPartition): Boolean = readers.columnar

  override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] = {
    val reader = readers(schemaOf(file))
    val rows = if (positions) RowPositions.rows(reader.rows(file)) else reader.rows(file)
    deletionVector(file, reader).fold(rows)(DeletedRows.rows(rows, _))
  }

  override def buildColumnarReader(file: PartitionedFile): PartitionReader[ColumnarBatch] = {
    val reader = readers(schemaOf(file))
    val batches = if (positions) RowPositions.batches(reader.batches(file)) else reader.batches(file)
    deletionVector(file, reader).fold(batches)(DeletedRows.batches(batches, _))
  }

  @transient private lazy val vectors = new DeletedRows.TaskVectors

  /** The file's deletion vector, when it has one ([[SchemaReaders.DeletionFileKey]]). */
  private def deletionVector(file: PartitionedFile, reader: LayoutReader): Option[DeletionVector] =
    file.otherConstantMetadataColumnValues.get(SchemaReaders.DeletionFileKey)
      .map(encoded => vectors(DeletionFile.decode(encoded.toString), reader.io))

  private def schemaOf(file: PartitionedFile): Long =
    file.otherConstantMetadataColumnValues(SchemaReaders.SchemaIdKey).asInstanceOf[Long]
}
