package paimonspark.spark.read

import scala.collection.mutable

import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.{LongType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.{DataFileReader, KeyValueFields}
import paimonspark.table.FileStoreTable

/**
 * Reads data files with Spark's Parquet reader as rows of one read schema, without copying them;
 * each file by the reader of the schema it was written with ([[SchemaReaders]]). Files open at the
 * same time need readers of their own: Spark's factory closes the reader it made last whenever it
 * makes another (its vectorized reader then returns zeroed rows), which a merge reading files in
 * step must not have. Such readers are copies ([[ReaderCopies]]), which still cost a deserialization
 * each, so a closed file's reader goes back to a pool for the next file instead of being dropped. An
 * instance is used by one task: each task deserializes its own.
 */
final class SparkFileReader(readers: SchemaReaders) extends DataFileReader {
  @transient private lazy val idle = mutable.HashMap.empty[Long, List[LayoutReader]]
  @transient private lazy val copies = mutable.HashMap.empty[Long, ReaderCopies]

  private def acquire(schemaId: Long): LayoutReader = synchronized {
    idle.getOrElse(schemaId, Nil) match {
      case reader :: rest => idle(schemaId) = rest; reader
      case Nil => copies.getOrElseUpdate(schemaId, new ReaderCopies(readers(schemaId))).copy()
    }
  }

  private def release(schemaId: Long, reader: LayoutReader): Unit =
    synchronized(idle(schemaId) = reader :: idle.getOrElse(schemaId, Nil))

  override def open(file: Path, size: Long, schemaId: Long): DataFileReader.Rows = {
    val reader = acquire(schemaId)
    val done = () => release(schemaId, reader)
    // Batches are walked row by row in place; the row reader would copy every row into an unsafe row.
    if (reader.columnar) new BatchRows(reader.batches(split(file, size)), file, done)
    else new ReaderRows(reader.rows(split(file, size)), file, done)
  }

  /**
   * Opens a file with a reader made without `_SEQUENCE_NUMBER`, as batches holding `sequence` in
   * that column's place (the first): for merges whose files have disjoint sequence ranges, which
   * only compare the column's values across files. Needs columnar reads.
   */
  def openWithSequence(file: Path, size: Long, schemaId: Long, sequence: Long): DataFileReader.Rows = {
    val reader = acquire(schemaId)
    new BatchRows(new SequencePrepended(reader.batches(split(file, size)), sequence), file, () => release(schemaId, reader))
  }

  override def columnar: Boolean = readers.columnar

  private def split(file: Path, size: Long): PartitionedFile =
    PartitionedFile(InternalRow.empty, SparkPath.fromPath(file), 0L, size, Array.empty[String], 0L, size, Map.empty)
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
private[read] final class BatchRows(reader: PartitionReader[ColumnarBatch], file: Path, closed: () => Unit)
    extends DataFileReader.Rows with DataFileReader.Batched {
  private var current: ColumnarBatch = _
  private var position = 0
  private var ended = false

  /** The batch holding the last row returned; null before the first and after the last. */
  override def batch: ColumnarBatch = current

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

  override def nextBatch(): Boolean = {
    if (current != null) position = current.numRows()
    hasNext
  }

  private var open = true

  /** Closes the file, and hands its reader back once. */
  override def close(): Unit = if (open) { open = false; reader.close(); closed() }
}

/** The rows of a file read row by row (types Spark cannot read into batches). */
private final class ReaderRows(reader: PartitionReader[InternalRow], file: Path, closed: () => Unit)
    extends DataFileReader.Rows {
  private var ready: Option[Boolean] = None

  override def hasNext: Boolean = ready.getOrElse { val more = reader.next(); ready = Some(more); more }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException(s"no more rows in $file")
    ready = None
    reader.get()
  }

  private var open = true

  /** Closes the file, and hands its reader back once. */
  override def close(): Unit = if (open) { open = false; reader.close(); closed() }
}

object SparkFileReader {
  /**
   * What compaction reads of a table's files, whatever schema they were written with: every column
   * of its current schema, after (sequence, kind) for a primary-key table. Built on the driver,
   * where the session's conf is.
   */
  def forCompaction(table: FileStoreTable): SparkFileReader = {
    val schema = table.schema
    val (read, fileFields) =
      if (table.isPrimaryKeyTable) (Seq(KeyValueFields.SequenceNumber, KeyValueFields.ValueKind) ++ schema.fields,
        SchemaReaders.keyValueFields(table.location.toString) _)
      else (schema.fields, SchemaReaders.appendFields _)
    new SparkFileReader(SchemaReaders.build(table, read, fileFields, new StructType(), Nil, table.allSchemas))
  }
}
