package paimonspark.format.parquet

import org.apache.parquet.io.api.{Binary, RecordConsumer}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters

import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, DataTypes, MapType, MultisetType, RowType,
  TypeRoot}

/**
 * Writes rows of Paimon fields (values as Spark holds them) through Parquet's record assembly, in
 * the layout of [[ParquetSchema]] and the value encodings of Paimon's Parquet writer: timestamps in
 * their precision's unit ([[TimestampUnit]]), decimals by precision, three-level lists and maps
 * (an empty list or map has no repeated group, a null element or value an empty one). Used for rows
 * [[FlatRowWriter]] does not encode: nested columns, INT96, settings only parquet-mr writes.
 */
final class ParquetRecordWriter(fields: Seq[DataField]) {
  private type Write = (SpecializedGetters, Int) => Unit
  private var consumer: RecordConsumer = _
  private val columns = fields.map(f => Column(f.name, writer(f.dataType, f.name), f.dataType.nullable)).toArray

  private final case class Column(name: String, write: Write, nullable: Boolean)

  /** Where the next rows go: the record consumer of the row group being written. */
  def bind(records: RecordConsumer): Unit = consumer = records

  def write(row: InternalRow): Unit = {
    consumer.startMessage()
    fieldsOf(row, columns)
    consumer.endMessage()
  }

  private def fieldsOf(row: SpecializedGetters, of: Array[Column]): Unit = {
    var i = 0
    while (i < of.length) {
      val c = of(i)
      if (!row.isNullAt(i)) {
        consumer.startField(c.name, i)
        c.write(row, i)
        consumer.endField(c.name, i)
      } else if (!c.nullable) throw new IllegalStateException(s"column ${c.name} is NOT NULL but has a null value")
      i += 1
    }
  }

  private def writer(t: DataType, path: String): Write = t match {
    case a: AtomicType => atomic(a)
    case r: RowType =>
      val nested = r.fields.map(f => Column(f.name, writer(f.dataType, s"$path.${f.name}"), f.dataType.nullable)).toArray
      (g, i) => { consumer.startGroup(); fieldsOf(g.getStruct(i, nested.length), nested); consumer.endGroup() }
    case a: ArrayType =>
      val element = writer(a.element, s"$path.element")
      (g, i) => {
        val array = g.getArray(i)
        repeated(array.numElements(), "list")((n: Int) => if (!array.isNullAt(n)) field("element", 0)(element(array, n)))
      }
    case m: MapType => map(m.key, m.value, path)
    case m: MultisetType => map(m.element, DataTypes.int.withNullable(false), path)
  }

  private def map(key: DataType, value: DataType, path: String): Write = {
    val (keys, values) = (writer(key, s"$path.key"), writer(value, s"$path.value"))
    (g, i) => {
      val entries = g.getMap(i)
      val (k, v) = (entries.keyArray(), entries.valueArray())
      repeated(entries.numElements(), "key_value") { (n: Int) =>
        if (k.isNullAt(n)) throw new IllegalStateException(s"column $path has a null map key, which Parquet cannot hold")
        field("key", 0)(keys(k, n))
        if (!v.isNullAt(n)) field("value", 1)(values(v, n))
      }
    }
  }

  /** A list or map: a group holding `n` repeated groups named `name`, none when empty. */
  private def repeated(n: Int, name: String)(each: Int => Unit): Unit = {
    consumer.startGroup()
    if (n > 0) {
      consumer.startField(name, 0)
      var j = 0
      while (j < n) { consumer.startGroup(); each(j); consumer.endGroup(); j += 1 }
      consumer.endField(name, 0)
    }
    consumer.endGroup()
  }

  private def field(name: String, index: Int)(write: => Unit): Unit = {
    consumer.startField(name, index)
    write
    consumer.endField(name, index)
  }

  private def atomic(t: AtomicType): Write = t.root match {
    case TypeRoot.Boolean => (g, i) => consumer.addBoolean(g.getBoolean(i))
    case TypeRoot.TinyInt => (g, i) => consumer.addInteger(g.getByte(i).toInt)
    case TypeRoot.SmallInt => (g, i) => consumer.addInteger(g.getShort(i).toInt)
    case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => (g, i) => consumer.addInteger(g.getInt(i))
    case TypeRoot.BigInt => (g, i) => consumer.addLong(g.getLong(i))
    case TypeRoot.Float => (g, i) => consumer.addFloat(g.getFloat(i))
    case TypeRoot.Double => (g, i) => consumer.addDouble(g.getDouble(i))
    case TypeRoot.Char | TypeRoot.VarChar => (g, i) => consumer.addBinary(Binary.fromReusedByteArray(g.getUTF8String(i).getBytes))
    case TypeRoot.Binary | TypeRoot.VarBinary => (g, i) => consumer.addBinary(Binary.fromReusedByteArray(g.getBinary(i)))
    case TypeRoot.Decimal =>
      val (p, s) = (t.precision, t.scale)
      if (p <= 9) (g, i) => consumer.addInteger(g.getDecimal(i, p, s).toUnscaledLong.toInt)
      else if (p <= 18) (g, i) => consumer.addLong(g.getDecimal(i, p, s).toUnscaledLong)
      else {
        val width = ParquetSchema.decimalBytes(p)
        (g, i) => consumer.addBinary(Binary.fromReusedByteArray(DecimalBytes.fixed(g.getDecimal(i, p, s), width)))
      }
    case TypeRoot.Timestamp | TypeRoot.TimestampLtz => TimestampUnit.of(t.precision) match {
      case TimestampUnit.Millis => (g, i) => consumer.addLong(TimestampUnit.millis(g.getLong(i)))
      case TimestampUnit.Micros => (g, i) => consumer.addLong(g.getLong(i))
      case TimestampUnit.Int96 => (g, i) => consumer.addBinary(TimestampUnit.int96(g.getLong(i)))
    }
    case other => throw new UnsupportedOperationException(s"Paimon type ${other.keyword} is not written to Parquet")
  }
}

/** A decimal as a fixed-width two's-complement big-endian number, as Parquet's FIXED_LEN_BYTE_ARRAY decimals hold it. */
object DecimalBytes {
  def fixed(decimal: org.apache.spark.sql.types.Decimal, width: Int): Array[Byte] = {
    val bytes = decimal.toJavaBigDecimal.unscaledValue().toByteArray
    if (bytes.length == width) bytes
    else {
      val out = Array.fill[Byte](width)(if (bytes(0) < 0) -1 else 0)
      System.arraycopy(bytes, 0, out, width - bytes.length, bytes.length)
      out
    }
  }
}
