package paimonspark.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}

import paimonspark.spark.ColumnDefaults.NullsToDefaults
import paimonspark.table.FileStoreTable
import paimonspark.table.write.{AppendBuckets, AppendWriter, WrittenFiles}

/** Creates the per-task writers of an append table; a null of a column with a default is written as the default. */
final class AppendWriterFactory(table: FileStoreTable, buckets: AppendBuckets = AppendBuckets.Unaware())
    extends DataWriterFactory {
  private val defaults = new NullsToDefaults(table.name, table.schema.fields)

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = new DataWriter[InternalRow] {
    private val writer = new AppendWriter(table, buckets = buckets)
    override def write(row: InternalRow): Unit = writer.write(defaults(row))
    override def commit(): WriterCommitMessage = FilesWritten(WrittenFiles(writer.finish(), Nil, Nil))
    override def abort(): Unit = writer.abort()
    override def close(): Unit = ()
  }
}
