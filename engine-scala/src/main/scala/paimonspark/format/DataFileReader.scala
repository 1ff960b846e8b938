package paimonspark.format

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

/**
 * Reads a data file's rows back, in file order, as the schema the reader was made for, whatever
 * schema the file was written with (primary-key files as merge input, append files for
 * compaction). Implemented over Spark's Parquet reader by the Spark layer.
 */
trait DataFileReader extends Serializable {
  /** Opens `file`, written with schema `schemaId`. */
  def open(file: Path, size: Long, schemaId: Long): DataFileReader.Rows
}

object DataFileReader {
  /**
   * The rows of one file. They are the reader's own, not copies: each stays valid until the next
   * row of the same file is asked for. Closing releases the file.
   */
  abstract class Rows extends Iterator[InternalRow] with AutoCloseable
}
