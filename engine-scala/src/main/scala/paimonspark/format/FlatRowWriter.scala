package paimonspark.format

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.{ColumnDescriptor, ColumnWriteStore, ColumnWriter}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Writes rows of a schema without nested columns straight into Parquet's column writers, each
 * value converted as Spark's Parquet writer converts it (non-legacy decimals, INT64 micros for
 * timestamps), skipping the record assembly a nested schema needs, which costs more per value
 * than the encoding itself.
 */
final class FlatRowWriter private (fields: Array[FlatRowWriter.Field], descriptors: Array[ColumnDescriptor]) {
  private val writers = new Array[ColumnWriter](fields.length)
  private val required = descriptors.map(_.getMaxDefinitionLevel == 0)

  /** Points the writer at the column writers of a new row group. */
  def bind(store: ColumnWriteStore): Unit = descriptors.indices.foreach(i => writers(i) = store.getColumnWriter(descriptors(i)))

  def write(row: InternalRow): Unit = {
    var i = 0
    while (i < fields.length) {
      if (row.isNullAt(i)) {
        if (required(i)) throw new IllegalStateException(s"column ${descriptors(i).getPath.mkString(".")} is required but null")
        writers(i).writeNull(0, 0)
      } else fields(i).write(row, i, writers(i), if (required(i)) 0 else 1)
      i += 1
    }
  }
}

object FlatRowWriter {
  /** How one column's value is handed to its writer, at a definition level. */
  private trait Field {
    def write(row: InternalRow, i: Int, out: ColumnWriter, level: Int): Unit
  }

  /**
   * A writer for `schema` as `parquet` lays it out, if every column is a top-level primitive of a
   * type written here, stored as the physical type this writer produces; else None.
   */
  def of(schema: StructType, parquet: MessageType): Option[FlatRowWriter] = {
    val descriptors = parquet.getColumns.asScala.toArray
    val fields = schema.fields.map(f => field(f.dataType))
    val flat = descriptors.length == fields.length && descriptors.indices.forall { i =>
      val d = descriptors(i)
      d.getPath.length == 1 && d.getMaxRepetitionLevel == 0 &&
        fields(i).exists(_._1 == d.getPrimitiveType.getPrimitiveTypeName)
    }
    if (flat) Some(new FlatRowWriter(fields.map(_.get._2), descriptors)) else None
  }

  private def field(t: DataType): Option[(PrimitiveTypeName, Field)] = t match {
    case BooleanType => Some(BOOLEAN -> ((r, i, out, d) => out.write(r.getBoolean(i), 0, d)))
    case ByteType => Some(INT32 -> ((r, i, out, d) => out.write(r.getByte(i).toInt, 0, d)))
    case ShortType => Some(INT32 -> ((r, i, out, d) => out.write(r.getShort(i).toInt, 0, d)))
    case IntegerType | DateType => Some(INT32 -> ((r, i, out, d) => out.write(r.getInt(i), 0, d)))
    case LongType | TimestampType | TimestampNTZType => Some(INT64 -> ((r, i, out, d) => out.write(r.getLong(i), 0, d)))
    case FloatType => Some(FLOAT -> ((r, i, out, d) => out.write(r.getFloat(i), 0, d)))
    case DoubleType => Some(DOUBLE -> ((r, i, out, d) => out.write(r.getDouble(i), 0, d)))
    case StringType => Some(BINARY -> ((r, i, out, d) => out.write(Binary.fromReusedByteArray(r.getUTF8String(i).getBytes), 0, d)))
    case BinaryType => Some(BINARY -> ((r, i, out, d) => out.write(Binary.fromReusedByteArray(r.getBinary(i)), 0, d)))
    case t: DecimalType if t.precision <= Decimal.MAX_INT_DIGITS =>
      val (p, s) = (t.precision, t.scale)
      Some(INT32 -> ((r, i, out, d) => out.write(r.getDecimal(i, p, s).toUnscaledLong.toInt, 0, d)))
    case t: DecimalType if t.precision <= Decimal.MAX_LONG_DIGITS =>
      val (p, s) = (t.precision, t.scale)
      Some(INT64 -> ((r, i, out, d) => out.write(r.getDecimal(i, p, s).toUnscaledLong, 0, d)))
    case t: DecimalType =>
      val (p, s) = (t.precision, t.scale)
      val width = Decimal.minBytesForPrecision(p)
      Some(FIXED_LEN_BYTE_ARRAY -> ((r, i, out, d) => out.write(Binary.fromConstantByteArray(fixedWidth(r.getDecimal(i, p, s), width)), 0, d)))
    case _ => None
  }

  /** A decimal's unscaled two's-complement bytes, sign-extended to the column's fixed width. */
  private def fixedWidth(decimal: Decimal, width: Int): Array[Byte] = {
    val bytes = decimal.toJavaBigDecimal.unscaledValue().toByteArray
    if (bytes.length == width) bytes
    else {
      val out = Array.fill[Byte](width)(if (bytes(0) < 0) -1 else 0)
      System.arraycopy(bytes, 0, out, width - bytes.length, bytes.length)
      out
    }
  }
}
