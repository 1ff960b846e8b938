package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, UnsafeProjection}
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * The columns of a file read in an older type, cast to the type the table has now: `casts` maps an
 * ordinal of the rows read to the cast to apply there (built on [[PaimonCasts]]), the other
 * columns pass as they are. Rows are projected whole; batches get new vectors for the cast columns
 * only, which needs atomic target types.
 */
final class ColumnCasts(rowType: StructType, casts: Map[Int, Expression]) extends Serializable {

  def isEmpty: Boolean = casts.isEmpty

  def columnar: Boolean = casts.values.forall(_.dataType match {
    case _: StructType | _: ArrayType | _: MapType => false
    case _ => true
  })

  private def expressions: Seq[Expression] = rowType.indices.map(i =>
    casts.getOrElse(i, BoundReference(i, rowType(i).dataType, nullable = true)))

  def rows(reader: PartitionReader[InternalRow]): PartitionReader[InternalRow] =
    if (isEmpty) reader
    else new PartitionReader[InternalRow] {
      private val projection = UnsafeProjection.create(expressions)
      override def next(): Boolean = reader.next()
      override def get(): InternalRow = projection(reader.get())
      override def close(): Unit = reader.close()
    }

  def batches(reader: PartitionReader[ColumnarBatch]): PartitionReader[ColumnarBatch] =
    if (isEmpty) reader
    else new PartitionReader[ColumnarBatch] {
      private val ordinals = casts.keys.toArray.sorted
      private val projection = UnsafeProjection.create(ordinals.toSeq.map(casts))
      private val types = ordinals.map(casts(_).dataType)
      private var vectors: Array[WritableColumnVector] = Array.empty
      private var capacity = 0

      override def next(): Boolean = reader.next()

      override def get(): ColumnarBatch = {
        val batch = reader.get()
        val rows = batch.numRows()
        if (capacity < rows) {
          vectors.foreach(_.close())
          capacity = math.max(rows, 1)
          vectors = types.map(t => new OnHeapColumnVector(capacity, t): WritableColumnVector)
        } else vectors.foreach(_.reset())
        var r = 0
        while (r < rows) {
          val cast = projection(batch.getRow(r))
          var c = 0
          while (c < ordinals.length) {
            ColumnCasts.put(vectors(c), r, cast, c, types(c))
            c += 1
          }
          r += 1
        }
        val columns: Array[ColumnVector] = (0 until batch.numCols()).map(batch.column).toArray
        ordinals.indices.foreach(c => columns(ordinals(c)) = vectors(c))
        new ColumnarBatch(columns, rows)
      }

      override def close(): Unit = {
        vectors.foreach(_.close())
        reader.close()
      }
    }
}

object ColumnCasts {
  /** Writes value `c` of `row` into `vector` at `r`, for the atomic types a cast can yield. */
  private def put(vector: WritableColumnVector, r: Int, row: InternalRow, c: Int, t: DataType): Unit =
    if (row.isNullAt(c)) vector.putNull(r)
    else t match {
      case BooleanType => vector.putBoolean(r, row.getBoolean(c))
      case ByteType => vector.putByte(r, row.getByte(c))
      case ShortType => vector.putShort(r, row.getShort(c))
      case IntegerType | DateType => vector.putInt(r, row.getInt(c))
      case LongType | TimestampType | TimestampNTZType => vector.putLong(r, row.getLong(c))
      case FloatType => vector.putFloat(r, row.getFloat(c))
      case DoubleType => vector.putDouble(r, row.getDouble(c))
      case d: DecimalType => vector.putDecimal(r, row.getDecimal(c, d.precision, d.scale), d.precision)
      case _: StringType => vector.putByteArray(r, row.getUTF8String(c).getBytes)
      case BinaryType => vector.putByteArray(r, row.getBinary(c))
      case other => throw new IllegalStateException(s"cannot put a ${other.sql} into a column vector")
    }
}
