package paimonspark.spark.read

import org.apache.avro.Schema
import org.apache.avro.file.DataFileReader
import org.apache.avro.io.{DatumReader, Decoder}
import org.apache.avro.mapred.FsInput
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.apache.spark.util.SerializableConfiguration

import paimonspark.format.avro.AvroVectorDecoder

/**
 * Reads Paimon's Avro data files with Avro's own library (Spark's `avro` data source is not among
 * Spark's jars): their records are decoded straight into column vectors ([[AvroVectorDecoder]]), in
 * batches, then `partitionSchema`'s values are appended as constant columns, as Spark's Parquet reader
 * does. A file split by byte ranges is read from the first block that starts in its range. Filters are
 * not pushed: Spark evaluates them on what is read, after the manifest's statistics pruned the files.
 */
final class AvroPartitionReaderFactory(requested: StructType, partitionSchema: StructType,
    conf: Broadcast[SerializableConfiguration]) extends FilePartitionReaderFactory {
  override def options: FileSourceOptions = new FileSourceOptions(CaseInsensitiveMap(Map.empty[String, String]))
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def buildColumnarReader(file: PartitionedFile): PartitionReader[ColumnarBatch] =
    new AvroBatchReader(file, requested, partitionSchema, conf.value.value)

  /** Rows of the batches: each valid until the next, as the rows of Spark's own readers are. */
  override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] = new PartitionReader[InternalRow] {
    private val batches = buildColumnarReader(file)
    private var batch: ColumnarBatch = _
    private var position = 0

    override def next(): Boolean = {
      while (batch == null || position >= batch.numRows()) {
        if (!batches.next()) return false
        batch = batches.get()
        position = 0
      }
      position += 1
      true
    }
    override def get(): InternalRow = batch.getRow(position - 1)
    override def close(): Unit = batches.close()
  }
}

private final class AvroBatchReader(file: PartitionedFile, requested: StructType, partitionSchema: StructType,
    hadoopConf: org.apache.hadoop.conf.Configuration) extends PartitionReader[ColumnarBatch] {
  private val capacity = AvroBatchReader.BatchSize
  private val columns: Array[WritableColumnVector] =
    requested.fields.map(f => new OnHeapColumnVector(capacity, f.dataType): WritableColumnVector)
  private val partitionColumns: Array[ColumnVector] = partitionSchema.fields.indices.map { i =>
    val column = new ConstantColumnVector(capacity, partitionSchema(i).dataType)
    ColumnVectorUtils.populate(column, file.partitionValues, i)
    column: ColumnVector
  }.toArray
  private val records = new BatchDatumReader(requested, columns)
  private val reader = DataFileReader.openReader(new FsInput(file.toPath, hadoopConf), records)
  private val end = file.start + file.length
  reader.sync(file.start)
  private var batch: ColumnarBatch = _

  override def next(): Boolean = {
    records.startBatch()
    while (records.rows < capacity && reader.hasNext && !reader.pastSync(end)) reader.next(null)
    val rows = records.rows
    records.decoder.missing.foreach(c => columns(c).putNulls(0, rows))
    batch = new ColumnarBatch((columns ++ partitionColumns).map(c => c: ColumnVector), rows)
    rows > 0
  }

  override def get(): ColumnarBatch = batch

  override def close(): Unit = {
    reader.close()
    (columns ++ partitionColumns).foreach(_.close())
  }
}

private object AvroBatchReader {
  /** Rows per batch: Spark's own columnar readers' default. */
  val BatchSize = 4096
}

/** Avro's reader of the file's records, each decoded into the next row of `columns`. */
private final class BatchDatumReader(requested: StructType, columns: Array[WritableColumnVector])
    extends DatumReader[AnyRef] {
  var decoder: AvroVectorDecoder = _
  var rows = 0

  override def setSchema(schema: Schema): Unit = decoder = new AvroVectorDecoder(schema, requested)

  override def read(reuse: AnyRef, in: Decoder): AnyRef = {
    decoder.decode(in, columns, rows)
    rows += 1
    reuse
  }

  def startBatch(): Unit = {
    rows = 0
    columns.foreach(_.reset())
    decoder.reset()
  }
}
