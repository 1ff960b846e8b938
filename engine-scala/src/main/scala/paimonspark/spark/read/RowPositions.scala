package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow}
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * A file's rows with their positions appended ([[RowIndexColumn]]), counted from the file's first
 * row: the file is read whole, with no filter skipping rows, and positions are appended before any
 * row is dropped, so they are the file's own.
 */
object RowPositions {
  def rows(reader: PartitionReader[InternalRow]): PartitionReader[InternalRow] = new PartitionReader[InternalRow] {
    private val position = new GenericInternalRow(1)
    private val joined = new JoinedRow()
    private var count = 0L
    override def next(): Boolean = reader.next() && {
      position.setLong(0, count)
      count += 1
      true
    }
    override def get(): InternalRow = joined(reader.get(), position)
    override def close(): Unit = reader.close()
  }

  def batches(reader: PartitionReader[ColumnarBatch]): PartitionReader[ColumnarBatch] = new PartitionReader[ColumnarBatch] {
    private var positions: OnHeapColumnVector = _
    private var capacity = 0
    private var current: ColumnarBatch = _
    private var first = 0L
    override def next(): Boolean = reader.next() && {
      val batch = reader.get()
      val rows = batch.numRows()
      if (capacity < rows) {
        if (positions != null) positions.close()
        capacity = math.max(rows, 1)
        positions = new OnHeapColumnVector(capacity, LongType)
      }
      var r = 0
      while (r < rows) { positions.putLong(r, first + r); r += 1 }
      first += rows
      current = new ColumnarBatch((0 until batch.numCols()).map(batch.column).toArray :+ (positions: ColumnVector), rows)
      true
    }
    override def get(): ColumnarBatch = current
    override def close(): Unit = {
      if (positions != null) positions.close()
      reader.close()
    }
  }
}
