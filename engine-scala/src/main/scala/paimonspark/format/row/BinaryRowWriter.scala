package paimonspark.format.row

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.format.{AtomicType, DataType, TypeRoot}

/**
 * Writes fields of rows in [[BinaryRow]]'s layout into one buffer it reuses: the writer of every
 * written row's bucket key. How each field is written is decided once, from its type; a row
 * costs no allocation unless it outgrows the buffer. `ordinals` are where the fields sit in the
 * rows given, so a key is written straight from a table row.
 */
final class BinaryRowWriter(types: Seq[DataType], ordinals: Seq[Int]) {
  import BinaryRowWriter._

  private val width = BinaryRow.bitSetWidth(types.size)
  private val fixed = width + 8 * types.size
  private val fields: Array[Field] = types.map(field).toArray
  private val at: Array[Int] = ordinals.toArray
  private var buf = ByteBuffer.allocate(math.max(fixed, 64)).order(ByteOrder.LITTLE_ENDIAN)

  /** The bytes of the last row written, in its first `write(row)` bytes. */
  def buffer: Array[Byte] = buf.array()

  /** Writes a row's fields into `buffer` and returns how many bytes they take. */
  def write(row: InternalRow): Int = {
    var size = fixed
    var i = 0
    while (i < fields.length) { size += fields(i).variableSize(row, at(i)); i += 1 }
    if (size > buf.capacity()) buf = ByteBuffer.allocate(size * 2).order(ByteOrder.LITTLE_ENDIAN)
    java.util.Arrays.fill(buf.array(), 0, size, 0.toByte)
    var cursor = fixed
    i = 0
    while (i < fields.length) {
      val slot = width + 8 * i
      if (row.isNullAt(at(i))) {
        val bit = i + 8
        buf.put(bit >> 3, (buf.get(bit >> 3) | (1 << (bit & 7))).toByte)
        cursor = fields(i).writeNull(buf, slot, cursor)
      } else cursor = fields(i).write(buf, slot, cursor, row, at(i))
      i += 1
    }
    size
  }
}

private object BinaryRowWriter {
  /** How one field is written: its bytes past the fixed part, and the writing (returns the new cursor). */
  private abstract class Field {
    def variableSize(row: InternalRow, i: Int): Int = 0
    def write(buf: ByteBuffer, slot: Int, cursor: Int, row: InternalRow, i: Int): Int
    def writeNull(buf: ByteBuffer, slot: Int, cursor: Int): Int = cursor
  }

  private def fixedField(put: (ByteBuffer, Int, InternalRow, Int) => Unit): Field = new Field {
    override def write(buf: ByteBuffer, slot: Int, cursor: Int, row: InternalRow, i: Int): Int = { put(buf, slot, row, i); cursor }
  }

  /** Strings and binaries: up to 7 bytes inside the slot (length in its last byte), else in 8-byte chunks. */
  private def varLengthField(bytes: (InternalRow, Int) => Array[Byte], length: (InternalRow, Int) => Int): Field = new Field {
    override def variableSize(row: InternalRow, i: Int): Int =
      if (row.isNullAt(i)) 0 else { val n = length(row, i); if (n <= 7) 0 else (n + 7) / 8 * 8 }
    override def write(buf: ByteBuffer, slot: Int, cursor: Int, row: InternalRow, i: Int): Int = {
      val b = bytes(row, i)
      if (b.length <= 7) {
        System.arraycopy(b, 0, buf.array(), slot, b.length)
        buf.put(slot + 7, (0x80 | b.length).toByte)
        cursor
      } else {
        System.arraycopy(b, 0, buf.array(), cursor, b.length)
        buf.putLong(slot, (cursor.toLong << 32) | b.length)
        cursor + (b.length + 7) / 8 * 8
      }
    }
  }

  /** High-precision decimals and timestamps: a reserved part past the fixed one, kept (zeroed) for nulls too. */
  private def reservedField(size: Int, put: (ByteBuffer, Int, Int, InternalRow, Int) => Unit): Field = new Field {
    override def variableSize(row: InternalRow, i: Int): Int = size
    override def write(buf: ByteBuffer, slot: Int, cursor: Int, row: InternalRow, i: Int): Int = {
      put(buf, slot, cursor, row, i)
      cursor + size
    }
    override def writeNull(buf: ByteBuffer, slot: Int, cursor: Int): Int = {
      buf.putLong(slot, cursor.toLong << 32)
      cursor + size
    }
  }

  /** Nested types have no BinaryRow encoding here; they only occur as nulls (stats of such columns). */
  private def nullOnly(t: DataType): Field = new Field {
    override def write(buf: ByteBuffer, slot: Int, cursor: Int, row: InternalRow, i: Int): Int =
      throw new UnsupportedOperationException(s"type ${t.sql} cannot be stored in a BinaryRow")
  }

  private def field(t: DataType): Field = if (!t.isInstanceOf[AtomicType]) nullOnly(t) else BinaryRow.atomic(t) match {
    case (TypeRoot.Decimal, p) if p > 18 =>
      val s = t.asInstanceOf[AtomicType].scale
      reservedField(16, (buf, slot, cursor, row, i) => {
        val unscaled = BinaryRow.scaled(row.getDecimal(i, p, s), s).unscaledValue().toByteArray
        System.arraycopy(unscaled, 0, buf.array(), cursor, unscaled.length)
        buf.putLong(slot, (cursor.toLong << 32) | unscaled.length)
      })
    case (TypeRoot.Timestamp | TypeRoot.TimestampLtz, p) if p > 3 =>
      reservedField(8, (buf, slot, cursor, row, i) => {
        val micros = row.getLong(i)
        buf.putLong(cursor, Math.floorDiv(micros, 1000L))
        buf.putLong(slot, (cursor.toLong << 32) | (Math.floorMod(micros, 1000L) * 1000L))
      })
    case (TypeRoot.Char | TypeRoot.VarChar, _) => varLengthField((r, i) => r.getUTF8String(i).getBytes, (r, i) => r.getUTF8String(i).numBytes())
    case (TypeRoot.Binary | TypeRoot.VarBinary, _) => varLengthField((r, i) => r.getBinary(i), (r, i) => r.getBinary(i).length)
    case (TypeRoot.Boolean, _) => fixedField((buf, slot, r, i) => buf.put(slot, (if (r.getBoolean(i)) 1 else 0).toByte))
    case (TypeRoot.TinyInt, _) => fixedField((buf, slot, r, i) => buf.put(slot, r.getByte(i)))
    case (TypeRoot.SmallInt, _) => fixedField((buf, slot, r, i) => buf.putShort(slot, r.getShort(i)))
    case (TypeRoot.Int | TypeRoot.Date | TypeRoot.Time, _) => fixedField((buf, slot, r, i) => buf.putInt(slot, r.getInt(i)))
    case (TypeRoot.BigInt, _) => fixedField((buf, slot, r, i) => buf.putLong(slot, r.getLong(i)))
    case (TypeRoot.Float, _) => fixedField((buf, slot, r, i) => buf.putFloat(slot, r.getFloat(i)))
    case (TypeRoot.Double, _) => fixedField((buf, slot, r, i) => buf.putDouble(slot, r.getDouble(i)))
    case (TypeRoot.Decimal, p) =>
      val s = t.asInstanceOf[AtomicType].scale
      fixedField((buf, slot, r, i) => buf.putLong(slot, BinaryRow.scaled(r.getDecimal(i, p, s), s).unscaledValue().longValueExact()))
    case (TypeRoot.Timestamp | TypeRoot.TimestampLtz, _) => fixedField((buf, slot, r, i) => buf.putLong(slot, Math.floorDiv(r.getLong(i), 1000L)))
    case (other, _) => throw new UnsupportedOperationException(s"type ${other.keyword} cannot be stored in a BinaryRow")
  }
}
