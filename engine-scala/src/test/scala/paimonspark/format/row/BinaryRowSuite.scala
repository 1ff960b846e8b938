package paimonspark.format.row

import java.time.{LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.DataTypes

/** The worked examples of the format notes (§5.2), byte for byte, and round trips. */
class BinaryRowSuite extends AnyFunSuite {
  private def hex(s: String): Array[Byte] = s.replaceAll("\\s", "").grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
  private def show(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString
  private def row(values: Any*) = new GenericInternalRow(values.toArray[Any])

  test("a one-string partition row") {
    val bytes = BinaryRow.serialize(Seq(DataTypes.string), row(UTF8String.fromString("2024-01-01")))
    assert(show(bytes) == show(hex("00000001 0000000000000000 0a00000010000000 323032342d30312d3031000000000000")))
  }

  test("a BIGINT key") {
    assert(show(BinaryRow.serialize(Seq(DataTypes.bigint), row(1L))) ==
      show(hex("00000001 0000000000000000 0100000000000000")))
  }

  test("short strings are stored inline with 0x80|len in the top byte") {
    val bytes = BinaryRow.toBytes(Seq(DataTypes.string), row(UTF8String.fromString("ab")))
    assert(show(bytes.slice(8, 16)) == "6162000000000082")
  }

  test("the seven-field example with nulls, a wide decimal and a micro timestamp") {
    val types = Seq(DataTypes.string, DataTypes.int, DataTypes.decimal(20, 2), DataTypes.timestamp(6),
      DataTypes.bigint, DataTypes.boolean, DataTypes.date)
    val micros = LocalDateTime.of(2024, 1, 1, 0, 0, 0, 123456000).toEpochSecond(ZoneOffset.UTC) * 1000000L + 123456L
    val value = row(UTF8String.fromString("ab"), -5, Decimal(BigDecimal("12345678901234567.89"), 20, 2), micros,
      null, true, 1)
    val expected = hex(
      "00000007" +
        "0010000000000000" + "6162000000000082" + "fbffffff00000000" + "0800000040000000" +
        "40f5060050000000" + "0000000000000000" + "0100000000000000" + "0100000000000000" +
        "112210f47de98115" + "0000000000000000" + "7bf451c28c010000")
    val bytes = BinaryRow.serialize(types, value)
    assert(show(bytes) == show(expected))
    val back = BinaryRow.deserialize(types, bytes)
    assert(back.getUTF8String(0).toString == "ab")
    assert(back.getInt(1) == -5)
    assert(back.getDecimal(2, 20, 2) == Decimal(BigDecimal("12345678901234567.89"), 20, 2))
    assert(back.getLong(3) == micros)
    assert(back.isNullAt(4))
    assert(back.getBoolean(5))
    assert(back.getInt(6) == 1)
  }

  test("null wide decimals and timestamps still reserve their variable-length areas") {
    val types = Seq(DataTypes.decimal(30, 5), DataTypes.timestampLtz(6))
    val bytes = BinaryRow.toBytes(types, row(null, null))
    // 8 bytes of null bits, 2 slots, 16 reserved decimal bytes, 8 reserved timestamp bytes.
    assert(bytes.length == 8 + 16 + 16 + 8)
    assert(show(bytes.slice(8, 16)) == "0000000018000000")
    assert(show(bytes.slice(16, 24)) == "0000000028000000")
  }

  test("the empty row serializes to 12 zero bytes") {
    assert(BinaryRow.serialize(Nil, row()).sameElements(BinaryRow.EmptySerialized))
    assert(BinaryRow.EmptySerialized.forall(_ == 0) && BinaryRow.EmptySerialized.length == 12)
  }

  test("every atomic type round-trips") {
    val types = Seq(DataTypes.tinyint, DataTypes.smallint, DataTypes.float, DataTypes.double, DataTypes.bytes,
      DataTypes.decimal(10, 3), DataTypes.timestampLtz(3), DataTypes.string, DataTypes.char(3))
    val value = row(7.toByte, (-300).toShort, 1.5f, -2.25, Array[Byte](1, 2, 3, 4, 5, 6, 7, 8, 9),
      Decimal(BigDecimal("-1234.567"), 10, 3), 1704067200123000L, UTF8String.fromString("héllo wörld, long"),
      UTF8String.fromString("abc"))
    val back = BinaryRow.deserialize(types, BinaryRow.serialize(types, value))
    assert(back.getByte(0) == 7 && back.getShort(1) == -300 && back.getFloat(2) == 1.5f && back.getDouble(3) == -2.25)
    assert(back.getBinary(4).toSeq == (1 to 9).map(_.toByte))
    assert(back.getDecimal(5, 10, 3) == Decimal(BigDecimal("-1234.567"), 10, 3))
    assert(back.getLong(6) == 1704067200123000L)
    assert(back.getUTF8String(7).toString == "héllo wörld, long")
    assert(back.getUTF8String(8).toString == "abc")
  }

  test("wide rows use a larger null bit set") {
    assert(BinaryRow.bitSetWidth(56) == 8)
    assert(BinaryRow.bitSetWidth(57) == 16)
    val types = Seq.fill(60)(DataTypes.int)
    val values = (0 until 60).map(i => if (i == 59) null else i)
    val back = BinaryRow.deserialize(types, BinaryRow.serialize(types, row(values: _*)))
    assert(back.isNullAt(59) && back.getInt(58) == 58)
  }

  test("one writer reused for rows of every size writes what a fresh one writes") {
    val types = Seq(DataTypes.string, DataTypes.bigint, DataTypes.string)
    val reused = new BinaryRowWriter(types, types.indices)
    // The long row outgrows the writer's first buffer; the short ones after it must not keep its tail.
    val rows = Seq(row(UTF8String.fromString("a" * 100), 7L, null), row(UTF8String.fromString("b"), null, UTF8String.fromString("c" * 9)),
      row(null, 1L, UTF8String.fromString("short")))
    rows.foreach { r =>
      val n = reused.write(r)
      assert(show(reused.buffer.take(n)) == show(BinaryRow.toBytes(types, r)))
      assert(BinaryRow.deserialize(types, BinaryRow.serialize(types, r)) == r)
    }
    assert(BinaryRow.toBytes(types, rows.head).length == 8 + 8 * 3 + 104)
  }
}
