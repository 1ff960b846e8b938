package paimonspark.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}

import paimonspark.table.{Bucketing, FileStoreTable, PrimaryKeyWriter}

/** Creates the per-task writers of a primary-key table; sequences and buckets are planned on the driver. */
final class PrimaryKeyWriterFactory(table: FileStoreTable, nextSequences: Map[String, Long], bucketing: Bucketing)
    extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = new DataWriter[InternalRow] {
    private val writer = new PrimaryKeyWriter(table, nextSequences, bucketing)
    override def write(row: InternalRow): Unit = writer.write(row)
    override def commit(): WriterCommitMessage = FilesWritten(writer.finish())
    override def abort(): Unit = writer.abort()
    override def close(): Unit = ()
  }
}
