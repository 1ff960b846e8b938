package paimonspark.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}

import paimonspark.table.FileStoreTable
import paimonspark.table.write.{AppendWriter, WrittenFiles}

/** Creates the per-task writers of an append table. */
final class AppendWriterFactory(table: FileStoreTable) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = new DataWriter[InternalRow] {
    private val writer = new AppendWriter(table)
    override def write(row: InternalRow): Unit = writer.write(row)
    override def commit(): WriterCommitMessage = FilesWritten(WrittenFiles(writer.finish(), Nil, Nil))
    override def abort(): Unit = writer.abort()
    override def close(): Unit = ()
  }
}
