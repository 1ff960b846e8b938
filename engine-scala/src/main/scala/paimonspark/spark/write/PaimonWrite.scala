package paimonspark.spark.write

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write._

import paimonspark.format.ManifestEntry
import paimonspark.spark.SparkTable
import paimonspark.table.{AppendWriter, FileStoreTable, OverwriteScope}

/** What one task wrote: the ADD entries of its data files. */
final case class FilesWritten(entries: Seq[ManifestEntry]) extends WriterCommitMessage

/**
 * A batch write: executors write data files, the driver commits them as one snapshot. Rows are
 * sorted by partition within each task (as Spark's file sources do), so a task keeps one file
 * open at a time.
 */
final class PaimonWrite(table: SparkTable, scope: Option[OverwriteScope])
    extends Write with RequiresDistributionAndOrdering with BatchWrite {

  private val store = table.store

  override def requiredDistribution(): Distribution = Distributions.unspecified()

  override def requiredOrdering(): Array[SortOrder] =
    store.schema.partitionKeys.map(k => Expressions.sort(Expressions.column(k), SortDirection.ASCENDING)).toArray

  override def toBatch: BatchWrite = this

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = new AppendWriterFactory(store)

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val entries = messages.toSeq.flatMap { case FilesWritten(e) => e }
    store.newCommit(UUID.randomUUID().toString).commit(entries, scope)
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    messages.toSeq.flatMap { case FilesWritten(e) => e; case _ => Nil }.foreach { e =>
      store.io.delete(store.dataFilePath(e.partition, e.bucket, e.file), recursive = false)
    }
}

final class AppendWriterFactory(table: FileStoreTable) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = new DataWriter[InternalRow] {
    private val writer = new AppendWriter(table)
    override def write(row: InternalRow): Unit = writer.write(row)
    override def commit(): WriterCommitMessage = FilesWritten(writer.finish())
    override def abort(): Unit = writer.abort()
    override def close(): Unit = ()
  }
}
