package paimonspark.format

import scala.annotation.switch
import scala.jdk.CollectionConverters._

import org.apache.parquet.column.{ColumnDescriptor, ColumnWriteStore, ColumnWriter}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * Writes rows of a schema without nested columns straight into Parquet's column writers, each
 * value converted as Spark's Parquet writer converts it (non-legacy decimals, INT64 micros for
 * timestamps), skipping the record assembly a nested schema needs, which costs more per value
 * than the encoding itself.
 */
final class FlatRowWriter private (fields: Array[FlatRowWriter.Field], descriptors: Array[ColumnDescriptor]) {
  import FlatRowWriter._

  private val writers = new Array[ColumnWriter](fields.length)
  private val required = descriptors.map(_.getMaxDefinitionLevel == 0)
  private val kinds = fields.map(_.kind)

  /** Points the writer at the column writers of a new row group. */
  def bind(store: ColumnWriteStore): Unit = descriptors.indices.foreach(i => writers(i) = store.getColumnWriter(descriptors(i)))

  // One switch over the column kinds, not a call through a function per value: the JIT sees one
  // call site per kind, each with a single target, instead of one site with a dozen.
  def write(row: InternalRow): Unit = {
    var i = 0
    while (i < kinds.length) {
      val out = writers(i)
      if (row.isNullAt(i)) {
        if (required(i)) throw new IllegalStateException(s"column ${descriptors(i).getPath.mkString(".")} is required but null")
        out.writeNull(0, 0)
      } else {
        val d = if (required(i)) 0 else 1
        (kinds(i): @switch) match {
          case Long64 => out.write(row.getLong(i), 0, d)
          case Int32 => out.write(row.getInt(i), 0, d)
          case Double64 => out.write(row.getDouble(i), 0, d)
          case Utf8 => out.write(utf8(row.getUTF8String(i)), 0, d)
          case _ => fields(i).write(row, i, out, d)
        }
      }
      i += 1
    }
  }

  // A string's bytes where the row holds them, if that is a byte array: no copy per value.
  private def utf8(s: UTF8String): Binary = s.getBaseObject match {
    case bytes: Array[Byte] => Binary.fromReusedByteArray(bytes, (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, s.numBytes)
    case _ => Binary.fromReusedByteArray(s.getBytes)
  }
}

object FlatRowWriter {
  // The kinds [[FlatRowWriter.write]] switches on; Other calls the field's own function.
  private final val Long64 = 0
  private final val Int32 = 1
  private final val Double64 = 2
  private final val Utf8 = 3
  private final val Other = 4

  /** How one column's value is handed to its writer, at a definition level; `kind` names the common ones. */
  private final case class Field(kind: Int, write: (InternalRow, Int, ColumnWriter, Int) => Unit)

  private def other(f: (InternalRow, Int, ColumnWriter, Int) => Unit) = Field(Other, f)
  private def unused(kind: Int) = Field(kind, (_, _, _, _) => throw new IllegalStateException("written by the switch"))

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
    case BooleanType => Some(BOOLEAN -> other((r, i, out, d) => out.write(r.getBoolean(i), 0, d)))
    case ByteType => Some(INT32 -> other((r, i, out, d) => out.write(r.getByte(i).toInt, 0, d)))
    case ShortType => Some(INT32 -> other((r, i, out, d) => out.write(r.getShort(i).toInt, 0, d)))
    case IntegerType | DateType => Some(INT32 -> unused(Int32))
    case LongType | TimestampType | TimestampNTZType => Some(INT64 -> unused(Long64))
    case FloatType => Some(FLOAT -> other((r, i, out, d) => out.write(r.getFloat(i), 0, d)))
    case DoubleType => Some(DOUBLE -> unused(Double64))
    case StringType => Some(BINARY -> unused(Utf8))
    case BinaryType => Some(BINARY -> other((r, i, out, d) => out.write(Binary.fromReusedByteArray(r.getBinary(i)), 0, d)))
    case t: DecimalType if t.precision <= Decimal.MAX_INT_DIGITS =>
      val (p, s) = (t.precision, t.scale)
      Some(INT32 -> other((r, i, out, d) => out.write(r.getDecimal(i, p, s).toUnscaledLong.toInt, 0, d)))
    case t: DecimalType if t.precision <= Decimal.MAX_LONG_DIGITS =>
      val (p, s) = (t.precision, t.scale)
      Some(INT64 -> other((r, i, out, d) => out.write(r.getDecimal(i, p, s).toUnscaledLong, 0, d)))
    case t: DecimalType =>
      val (p, s) = (t.precision, t.scale)
      val width = Decimal.minBytesForPrecision(p)
      Some(FIXED_LEN_BYTE_ARRAY -> other((r, i, out, d) => out.write(Binary.fromConstantByteArray(fixedWidth(r.getDecimal(i, p, s), width)), 0, d)))
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
