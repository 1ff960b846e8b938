package paimonspark.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.write.{DeltaWriter, DeltaWriterFactory, WriterCommitMessage}

import paimonspark.InvalidDataException
import paimonspark.format.SparkTypes
import paimonspark.lsm.KeyValue
import paimonspark.spark.ColumnDefaults.NullsToDefaults
import paimonspark.table.FileStoreTable
import paimonspark.table.compact.{CompactResult, WriteCompaction}
import paimonspark.table.write.{Bucketing, PrimaryKeyWriter, WriteRestore}

/**
 * Creates the per-task writers of a primary-key table; sequences and buckets are planned on the
 * driver, and with a `compaction` each task compacts the buckets it wrote once it wrote them. A
 * plain write upserts each row (with its `rowkind.field` kind, if the table has one); the row-level
 * changes of DELETE, UPDATE and MERGE INTO are written as what they are: a retraction of a key, an
 * update, an insert. Nothing is rewritten: they are merged on read like any write.
 */
final class PrimaryKeyWriterFactory(table: FileStoreTable, restored: WriteRestore, bucketing: Bucketing,
    compaction: Option[WriteCompaction]) extends DeltaWriterFactory {
  // Row ids are the primary key, in its order (see KeyDeltaOperation.rowId).
  private val keyOrdinals = table.schema.primaryKeys.map(k => table.schema.fields.indexWhere(_.name == k)).toArray
  private val keyTypes = keyOrdinals.map(i => SparkTypes.physicalType(table.schema.fields(i).dataType))
  private val width = table.schema.fields.size
  // Paimon writes the default of a column in place of a null.
  private val defaults = new NullsToDefaults(table.name, table.schema.fields)

  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] = new DeltaWriter[InternalRow] {
    private val writer = new PrimaryKeyWriter(table, restored, bucketing)
    // A retraction carries its key; Paimon's merge engines read nothing else of it.
    private val retraction = new GenericInternalRow(width)

    override def write(row: InternalRow): Unit = writer.write(defaults(row))
    override def insert(row: InternalRow): Unit = writer.write(defaults(row))
    override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit = {
      var i = 0
      while (i < keyOrdinals.length) {
        if (row.get(keyOrdinals(i), keyTypes(i)) != id.get(i, keyTypes(i))) {
          val column = table.schema.fields(keyOrdinals(i)).name
          throw new InvalidDataException(s"table ${table.name}: UPDATE and MERGE cannot assign primary-key column " +
            s"'$column'; delete the row and insert it with its new key", column)
        }
        i += 1
      }
      writer.write(defaults(row), KeyValue.UpdateAfter)
    }
    override def reinsert(metadata: InternalRow, row: InternalRow): Unit = writer.write(defaults(row), KeyValue.UpdateAfter)
    override def delete(metadata: InternalRow, id: InternalRow): Unit = {
      var i = 0
      while (i < keyOrdinals.length) { retraction.update(keyOrdinals(i), id.get(i, keyTypes(i))); i += 1 }
      writer.write(retraction, KeyValue.Delete)
    }
    override def commit(): WriterCommitMessage = {
      val written = writer.finish()
      FilesWritten(written, compaction.fold(Seq.empty[CompactResult])(_.run(written.data)))
    }
    override def abort(): Unit = writer.abort()
    override def close(): Unit = ()
  }
}
