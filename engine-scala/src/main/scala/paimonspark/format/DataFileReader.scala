package paimonspark.format

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Reads a data file's rows back, in file order, as the schema the reader was made for, whatever
 * schema the file was written with (primary-key files as merge input, append files for
 * compaction). Implemented over Spark's Parquet reader by the Spark layer.
 */
trait DataFileReader extends Serializable {
  /** Opens `file`, written with schema `schemaId`. */
  def open(file: Path, size: Long, schemaId: Long): DataFileReader.Rows

  /** Whether every file opens as [[DataFileReader.Batched]] rows. */
  def columnar: Boolean = false
}

object DataFileReader {
  /**
   * The rows of one file. They are the reader's own, not copies: each stays valid until the next
   * row of the same file is asked for. Closing releases the file.
   */
  abstract class Rows extends Iterator[InternalRow] with AutoCloseable

  /**
   * Rows read as columnar batches, which a merge may take a batch at a time. The reader refills
   * the same batch for the next one, so a position in `batch` is valid until `nextBatch`.
   */
  trait Batched {
    /** The current batch; null before the first and after the last. */
    def batch: ColumnarBatch

    /** Moves past the current batch's rows to the next batch with rows; false at the end. */
    def nextBatch(): Boolean
  }
}
