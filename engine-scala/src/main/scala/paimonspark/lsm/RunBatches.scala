package paimonspark.lsm

import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.DataFileReader
import paimonspark.format.metadata.DataFileMeta

/**
 * The batches of a sorted run's files, in key order, one file open at a time: a file is opened
 * (by `open`, which must give batched rows) when the one before has no batch left, and closed then.
 */
final class RunBatches(files: Seq[DataFileMeta], open: DataFileMeta => DataFileReader.Rows)
    extends DataFileReader.Batched with AutoCloseable {
  private val remaining = files.iterator
  private var current: DataFileReader.Rows with DataFileReader.Batched = _

  override def batch: ColumnarBatch = if (current == null) null else current.batch

  override def nextBatch(): Boolean = {
    while (current == null || !current.nextBatch()) {
      close()
      if (!remaining.hasNext) return false
      val file = remaining.next()
      current = open(file) match {
        case batched: DataFileReader.Batched => batched
        case other => other.close(); throw new IllegalStateException(s"${file.fileName} was not read as batches")
      }
    }
    true
  }

  override def close(): Unit = if (current != null) { current.close(); current = null }
}
