package paimonspark.spark.read

import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import paimonspark.lsm.KeyValue
import paimonspark.table.FileStoreTable

/**
 * Part of a stream's full read of a snapshot: a partition of that snapshot's batch scan, with the
 * scan's reader factory and the schema its rows have.
 */
final case class SnapshotPart(part: InputPartition, factory: PartitionReaderFactory, rowSchema: StructType,
    snapshotId: Long, commitMicros: Long) extends InputPartition {
  override def preferredLocations(): Array[String] = part.preferredLocations()
}

/**
 * Reads a stream's partitions as rows of `output` (the table's columns in order, with the added
 * ones): change files as [[ChangeScan]] reads them, an overwrite's buckets as [[DiffScan]] does, a
 * full read's rows as inserts of its snapshot.
 */
final class StreamReaderFactory(table: FileStoreTable, output: StructType, added: ChangeColumns, readsOverwrites: Boolean)
    extends PartitionReaderFactory {

  // A stream's change files may come from any schema the table has had.
  private val changes = ChangeReaderFactory.of(table, output, added, Nil, table.allSchemas)

  // Made here, on the driver, like `changes`: its Parquet reader needs the session. Only streams that
  // read overwrites of a primary-key table get diff splits.
  private val diffs = if (readsOverwrites && table.isPrimaryKeyTable) Some(DiffReaderFactory.of(table, output, added)) else None

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = partition match {
    case c: ChangeSplit => changes.createReader(c)
    case d: DiffSplit => diffs.get.createReader(d)
    case s: SnapshotPart =>
      val rows = s.factory.createReader(s.part)
      val extras = (added.leading ++ added.trailing).map(_.name)
      val width = s.rowSchema.length
      val projected = ProjectingInternalRow(output, output.fieldNames.toSeq.map { n =>
        if (extras.contains(n)) width + extras.indexOf(n) else s.rowSchema.fieldIndex(n)
      })
      val file = ChangeFile("", 0L, -1L, InternalRow.empty, s.snapshotId, s.commitMicros)
      val extraRow = new GenericInternalRow(extras.map(n => ChangeColumns.value(n, KeyValue.Insert, file)).toArray[Any])
      val joined = new JoinedRow()
      new PartitionReader[InternalRow] {
        override def next(): Boolean = rows.next() && { projected.project(joined(rows.get(), extraRow)); true }
        override def get(): InternalRow = projected
        override def close(): Unit = rows.close()
      }
    case other => throw new IllegalArgumentException(s"a Paimon stream does not read ${other.getClass.getName}")
  }
}
