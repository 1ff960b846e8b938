package paimonspark.spark.read

import org.apache.commons.lang3.SerializationUtils
import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.{LongType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.{DataFileReader, KeyValueFields, SparkTypes}
import paimonspark.lsm.KeyValue
import paimonspark.table.{FileStoreTable, KeyLayout}

/**
 * Reads data files with Spark's Parquet reader as rows of the factory's read schema (columns matched
 * by name), without copying them. Each file gets its own clone of the factory: a factory closes the
 * reader it made last whenever it makes another (its vectorized reader then returns zeroed rows),
 * which a merge reading files in step must not have. The clone is a serialized copy because the
 * factory cannot be constructed again on executors (its SQLConf is not readable there).
 */
final class ParquetFileReader(parquet: ParquetPartitionReaderFactory) extends DataFileReader {
  override def open(file: Path, size: Long): DataFileReader.Rows = {
    val (split, factory) = prepare(file, size)
    // Batches are walked row by row in place; the row reader would copy every row into an unsafe row.
    if (factory.supportColumnarReads(split)) new BatchRows(factory.createColumnarReader(split), file)
    else new ReaderRows(factory.createReader(split), file)
  }

  /**
   * Opens a file with a reader made without `_SEQUENCE_NUMBER`, as batches holding `sequence` in
   * that column's place (the first): for merges whose files have disjoint sequence ranges, which
   * only compare the column's values across files. Needs columnar reads.
   */
  def openWithSequence(file: Path, size: Long, sequence: Long): DataFileReader.Rows = {
    val (split, factory) = prepare(file, size)
    new BatchRows(new SequencePrepended(factory.createColumnarReader(split), sequence), file)
  }

  private def prepare(file: Path, size: Long): (FilePartition, ParquetPartitionReaderFactory) = {
    val split = FilePartition(0, Array(PartitionedFile(InternalRow.empty, SparkPath.fromPath(file), 0L, size,
      Array.empty[String], 0L, size, Map.empty)))
    (split, SerializationUtils.clone(parquet))
  }
}

/** The batches of `reader` with a column holding `sequence` in every row put first. */
private final class SequencePrepended(reader: PartitionReader[ColumnarBatch], sequence: Long)
    extends PartitionReader[ColumnarBatch] {
  override def next(): Boolean = reader.next()

  override def get(): ColumnarBatch = {
    val batch = reader.get()
    val column = new ConstantColumnVector(batch.numRows(), LongType)
    column.setLong(sequence)
    new ColumnarBatch((column +: (0 until batch.numCols()).map(batch.column)).toArray, batch.numRows())
  }

  override def close(): Unit = reader.close()
}

/**
 * The rows of a file read as columnar batches: views of the current batch. The reader fills the
 * same batch again for the next one, so a row, or a position in `batch`, is valid until then.
 */
private[read] final class BatchRows(reader: PartitionReader[ColumnarBatch], file: Path) extends DataFileReader.Rows {
  private var current: ColumnarBatch = _
  private var position = 0
  private var ended = false

  /** The batch holding the last row returned; null before the first and after the last. */
  def batch: ColumnarBatch = current

  /** The last row's position in `batch`. */
  def rowId: Int = position - 1

  /** Whether the next row, if any, is in another batch: asking for it reuses this one. */
  def atBatchEnd: Boolean = current == null || position >= current.numRows()

  override def hasNext: Boolean = {
    while (atBatchEnd && !ended) {
      if (reader.next()) {
        current = reader.get()
        position = 0
      } else {
        // Spark's reader closes the file at its end, and with it the vectors of its batch.
        current = null
        ended = true
      }
    }
    !atBatchEnd
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException(s"no more rows in $file")
    position += 1
    current.getRow(position - 1)
  }

  override def close(): Unit = reader.close()
}

/** The rows of a file read row by row (types Spark cannot read into batches). */
private final class ReaderRows(reader: PartitionReader[InternalRow], file: Path) extends DataFileReader.Rows {
  private var ready: Option[Boolean] = None

  override def hasNext: Boolean = ready.getOrElse { val more = reader.next(); ready = Some(more); more }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException(s"no more rows in $file")
    ready = None
    reader.get()
  }

  override def close(): Unit = reader.close()
}

object ParquetFileReader {
  /** The file schema of a primary-key table's data files, as Spark reads them. */
  def keyValueFileSchema(table: FileStoreTable): StructType = {
    val schema = table.schema
    val keys = KeyLayout.of(table.location.toString, schema).trimmedKeys.map(schema.field)
    SparkTypes.physical(SparkTypes.toSparkStruct(KeyValueFields.fileFields(keys, schema.fields), withFieldIds = false))
  }

  /**
   * What compaction reads of a table's files: every column of its current schema, after
   * (sequence, kind) for a primary-key table. Built on the driver, where the session's conf is.
   */
  def forCompaction(table: FileStoreTable): ParquetFileReader = {
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(table.schema.fields, withFieldIds = false))
    val (fileSchema, readSchema) =
      if (table.isPrimaryKeyTable) (keyValueFileSchema(table), StructType(KeyValue.SystemFields ++ columns.fields))
      else (columns, columns)
    new ParquetFileReader(ParquetReaders.factory(table.io.hadoopConf.value, fileSchema, readSchema, new StructType(), Nil))
  }
}
