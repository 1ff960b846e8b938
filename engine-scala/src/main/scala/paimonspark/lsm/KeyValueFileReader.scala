package paimonspark.lsm

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

/**
 * Reads primary-key data files back as merge input: rows of (sequence, kind, table columns), in
 * key order, each valid until the next row of the same file is read. Implemented over Spark's
 * Parquet reader by the Spark layer.
 */
trait KeyValueFileReader extends Serializable {
  def open(file: Path, size: Long): KeyValueFileReader.Rows
}

object KeyValueFileReader {
  /** The rows of one file; closing releases the file. */
  abstract class Rows extends Iterator[InternalRow] with AutoCloseable
}
