package paimonspark.format.row

import java.math.{BigInteger, BigDecimal => JBigDecimal}
import java.nio.{ByteBuffer, ByteOrder}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{AtomicType, DataType, TypeRoot}

/**
 * Paimon's BinaryRow: the byte layout of partition values, keys and stats rows in manifests.
 *
 * Layout (little-endian): a null bit set of `W` bytes whose first byte is the row kind, then one
 * 8-byte slot per field, then a variable part of 8-byte-aligned chunks. Java compares these rows
 * byte by byte, so the bytes written here must be canonical: zero padding, zero header, zeroed
 * null slots, and the reserved areas of null high-precision decimals and timestamps.
 *
 * Values are Spark's internal representations: UTF8String, Decimal, days as Int, and timestamps
 * as microseconds (Long), so rows read by Spark feed this codec without another conversion.
 */
object BinaryRow {

  def bitSetWidth(arity: Int): Int = ((arity + 63 + 8) / 64) * 8

  /** The 12-byte serialized empty row (arity 0), as unpartitioned tables store `_PARTITION`. */
  val EmptySerialized: Array[Byte] = new Array[Byte](12)

  /** Whether serialized row bytes hold no fields: statistics a writer left out (Paimon's empty stats). */
  def holdsNoFields(serialized: Array[Byte]): Boolean = serialized.length <= EmptySerialized.length

  /** 4-byte big-endian arity followed by the row bytes (`SerializationUtils.serializeBinaryRow`). */
  def serialize(types: Seq[DataType], row: InternalRow): Array[Byte] = {
    val body = toBytes(types, row)
    ByteBuffer.allocate(4 + body.length).putInt(types.size).put(body).array()
  }

  def deserialize(types: Seq[DataType], bytes: Array[Byte]): GenericInternalRow = {
    val arity = ByteBuffer.wrap(bytes, 0, 4).getInt
    require(arity == types.size, s"row has $arity fields, expected ${types.size}")
    fromBytes(types, ByteBuffer.wrap(bytes, 4, bytes.length - 4).slice().order(ByteOrder.LITTLE_ENDIAN))
  }

  /** The row bytes without the arity prefix; the input of the bucket hash. */
  def toBytes(types: Seq[DataType], row: InternalRow): Array[Byte] = {
    val writer = new BinaryRowWriter(types, types.indices)
    val length = writer.write(row) // first: a row larger than the buffer gets a new one
    java.util.Arrays.copyOf(writer.buffer, length)
  }

  private[format] def atomic(t: DataType): (TypeRoot, Int) = t match {
    case a: AtomicType => (a.root, a.precision)
    case other => throw new UnsupportedOperationException(s"type ${other.sql} cannot be stored in a BinaryRow")
  }

  private[format] def scaled(d: Decimal, scale: Int): JBigDecimal = d.toJavaBigDecimal.setScale(scale)

  private def fromBytes(types: Seq[DataType], buf: ByteBuffer): GenericInternalRow = {
    val width = bitSetWidth(types.size)
    val values = types.indices.map { i =>
      val bit = i + 8
      val isNull = (buf.get(bit >> 3) & (1 << (bit & 7))) != 0
      val slot = width + 8 * i
      if (isNull) null else readValue(types(i), buf, slot)
    }
    new GenericInternalRow(values.toArray[Any])
  }

  private def readValue(t: DataType, buf: ByteBuffer, slot: Int): Any = {
    val (root, p) = atomic(t)
    root match {
      case TypeRoot.Boolean => buf.get(slot) != 0
      case TypeRoot.TinyInt => buf.get(slot)
      case TypeRoot.SmallInt => buf.getShort(slot)
      case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => buf.getInt(slot)
      case TypeRoot.BigInt => buf.getLong(slot)
      case TypeRoot.Float => buf.getFloat(slot)
      case TypeRoot.Double => buf.getDouble(slot)
      case TypeRoot.Char | TypeRoot.VarChar => UTF8String.fromBytes(readVarLength(buf, slot))
      case TypeRoot.Binary | TypeRoot.VarBinary => readVarLength(buf, slot)
      case TypeRoot.Decimal =>
        val s = t.asInstanceOf[AtomicType].scale
        val unscaled =
          if (p <= 18) BigInteger.valueOf(buf.getLong(slot))
          else {
            val word = buf.getLong(slot)
            val bytes = new Array[Byte]((word & 0xffffffffL).toInt)
            System.arraycopy(buf.array(), buf.arrayOffset() + (word >>> 32).toInt, bytes, 0, bytes.length)
            new BigInteger(bytes)
          }
        Decimal(new JBigDecimal(unscaled, s), p, s)
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz =>
        if (p <= 3) buf.getLong(slot) * 1000L
        else {
          val word = buf.getLong(slot)
          val millis = buf.getLong((word >>> 32).toInt)
          millis * 1000L + (word & 0xffffffffL) / 1000L
        }
      case other => throw new UnsupportedOperationException(s"type ${other.keyword} cannot be read from a BinaryRow")
    }
  }

  private def readVarLength(buf: ByteBuffer, slot: Int): Array[Byte] = {
    val word = buf.getLong(slot)
    if ((word & 0x8000000000000000L) != 0) {
      val len = ((word >>> 56) & 0x7f).toInt
      val out = new Array[Byte](len)
      System.arraycopy(buf.array(), buf.arrayOffset() + slot, out, 0, len)
      out
    } else {
      val offset = (word >>> 32).toInt
      val len = (word & 0xffffffffL).toInt
      val out = new Array[Byte](len)
      System.arraycopy(buf.array(), buf.arrayOffset() + offset, out, 0, len)
      out
    }
  }
}
