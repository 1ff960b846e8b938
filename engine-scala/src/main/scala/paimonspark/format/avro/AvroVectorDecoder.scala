package paimonspark.format.avro

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type
import org.apache.avro.io.Decoder
import org.apache.avro.util.Utf8
import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.types._

import paimonspark.format.FileTypeContradiction

/**
 * Decodes values of an Avro schema, as Paimon's Avro writer lays out a column, straight into Spark's
 * column vectors: no Avro record is built. A value goes to position `r` of the vector it is given;
 * nested values append to the child vectors, whose counts restart with each batch ([[reset]]).
 */
private[format] sealed abstract class ValueDecoder {
  def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit
  def reset(): Unit = ()
}

/**
 * The decoder of Paimon's Avro data files into batches of `requested` columns: columns found by name
 * in the file's record schema, the other fields of the file skipped, requested columns the file lacks
 * left null. Paimon writes TIMESTAMP columns as Avro `timestamp-millis/micros` and TIMESTAMP_LTZ ones
 * as `local-timestamp-millis/micros` (the reverse of their Avro meanings); both are numbers of the
 * value's own epoch, as Spark's types hold them, so only the unit is converted.
 */
final class AvroVectorDecoder(fileSchema: Schema, requested: StructType) {
  require(fileSchema.getType == Type.RECORD, s"an Avro data file holds records, not ${fileSchema.getType}")

  private val fields: Array[(ValueDecoder, Int)] = fileSchema.getFields.asScala.map { field =>
    val column = requested.fieldNames.indexOf(field.name())
    Option.when(column >= 0)(column).fold[(ValueDecoder, Int)](new Skip(field.schema()) -> -1)(i =>
      AvroVectorDecoder.of(field.schema(), requested(i).dataType, s"${field.name()}") -> i)
  }.toArray

  /** The requested columns the file does not hold: null in every row. */
  val missing: Seq[Int] = requested.indices.filterNot(i => fields.exists(_._2 == i))

  /** Decodes one record into row `r` of `columns` (one vector per requested column). */
  def decode(in: Decoder, columns: Array[WritableColumnVector], r: Int): Unit = {
    var i = 0
    while (i < fields.length) {
      val (decoder, column) = fields(i)
      if (column < 0) decoder.decode(in, null, r) else decoder.decode(in, columns(column), r)
      i += 1
    }
  }

  /** Starts a batch: nested values fill their child vectors from the start again. */
  def reset(): Unit = fields.foreach(_._1.reset())
}

object AvroVectorDecoder {
  private[format] def of(schema: Schema, to: DataType, where: String): ValueDecoder = {
    def refuse() = throw new FileTypeContradiction(s"column '$where' is stored as Avro $schema, which does not hold its ${to.sql}")
    (schema.getType, to) match {
      case (Type.UNION, _) => new Union(schema.getTypes.asScala.map(b =>
        if (b.getType == Type.NULL) null else of(b, to, where)).toArray)
      case (Type.BOOLEAN, BooleanType) => Leaf((in, v, r) => v.putBoolean(r, in.readBoolean()))
      case (Type.INT, ByteType) => Leaf((in, v, r) => v.putByte(r, in.readInt().toByte))
      case (Type.INT, ShortType) => Leaf((in, v, r) => v.putShort(r, in.readInt().toShort))
      case (Type.INT, IntegerType | DateType) => Leaf((in, v, r) => v.putInt(r, in.readInt()))
      case (Type.LONG, LongType) => Leaf((in, v, r) => v.putLong(r, in.readLong()))
      case (Type.LONG, TimestampType | TimestampNTZType) => schema.getLogicalType match {
        case _: LogicalTypes.TimestampMillis | _: LogicalTypes.LocalTimestampMillis =>
          Leaf((in, v, r) => v.putLong(r, Math.multiplyExact(in.readLong(), 1000L)))
        case _: LogicalTypes.TimestampMicros | _: LogicalTypes.LocalTimestampMicros =>
          Leaf((in, v, r) => v.putLong(r, in.readLong()))
        case _ => refuse()
      }
      case (Type.FLOAT, FloatType) => Leaf((in, v, r) => v.putFloat(r, in.readFloat()))
      case (Type.DOUBLE, DoubleType) => Leaf((in, v, r) => v.putDouble(r, in.readDouble()))
      case (Type.STRING, _: StringType) => new Text
      case (Type.BYTES, BinaryType) => new Bytes((v, r, buffer) =>
        v.putByteArray(r, buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining()))
      case (Type.BYTES | Type.FIXED, d: DecimalType) => new Bytes((v, r, buffer) => {
        val unscaled = new Array[Byte](buffer.remaining())
        buffer.get(unscaled)
        v.putDecimal(r, Decimal(new JBigDecimal(new BigInteger(unscaled), d.scale), d.precision, d.scale), d.precision)
      }, fixed = if (schema.getType == Type.FIXED) schema.getFixedSize else -1)
      case (Type.RECORD, s: StructType) => new Struct(schema, s, where)
      case (Type.ARRAY, a: ArrayType) => new Repeated(Seq(of(schema.getElementType, a.elementType, s"$where[]")))
      // Paimon writes maps whose keys are not strings as arrays of {key, value} records.
      case (Type.ARRAY, m: MapType) if schema.getElementType.getType == Type.RECORD =>
        val entry = schema.getElementType
        new Repeated(Seq(of(entry.getField("key").schema(), m.keyType, s"$where.key"),
          of(entry.getField("value").schema(), m.valueType, s"$where.value")))
      case (Type.MAP, m: MapType) => new Repeated(Seq(of(Schema.create(Type.STRING), m.keyType, s"$where.key"),
        of(schema.getValueType, m.valueType, s"$where.value")), map = true)
      case _ => refuse()
    }
  }
}

private final case class Leaf(put: (Decoder, WritableColumnVector, Int) => Unit) extends ValueDecoder {
  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = put(in, vector, r)
}

/** A nullable value: Paimon writes `["null", type]`. */
private final class Union(branches: Array[ValueDecoder]) extends ValueDecoder {
  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = branches(in.readIndex()) match {
    case null => vector.putNull(r)
    case branch => branch.decode(in, vector, r)
  }
  override def reset(): Unit = branches.foreach(b => if (b != null) b.reset())
}

private final class Text extends ValueDecoder {
  private var text = new Utf8()
  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = {
    text = in.readString(text)
    vector.putByteArray(r, text.getBytes, 0, text.getByteLength)
  }
}

private final class Bytes(put: (WritableColumnVector, Int, ByteBuffer) => Unit, fixed: Int = -1) extends ValueDecoder {
  private var buffer: ByteBuffer = _
  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit =
    if (fixed >= 0) {
      val bytes = new Array[Byte](fixed)
      in.readFixed(bytes)
      put(vector, r, ByteBuffer.wrap(bytes))
    } else {
      buffer = in.readBytes(buffer)
      put(vector, r, buffer)
    }
}

/** A nested record: its fields go to the struct vector's children, by name. */
private final class Struct(schema: Schema, to: StructType, where: String) extends ValueDecoder {
  private val inner = new AvroVectorDecoder(schema, to)
  private val missing = inner.missing.toArray

  private var parent: WritableColumnVector = _
  private var children: Array[WritableColumnVector] = _

  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = {
    if (vector ne parent) { parent = vector; children = Array.tabulate(to.length)(vector.getChild) }
    // A struct vector does not grow its children with itself.
    children.foreach(_.reserve(r + 1))
    vector.putNotNull(r)
    inner.decode(in, children, r)
    missing.foreach(i => children(i).putNull(r))
  }
  override def reset(): Unit = inner.reset()
}

/**
 * An array (one element decoder) or a map (key and value decoders), in Avro's blocks: the entries are
 * appended to the vector's child vectors (`arrayData`, or the key and value children of a map).
 */
private final class Repeated(entries: Seq[ValueDecoder], map: Boolean = false) extends ValueDecoder {
  private var appended = 0
  private val decoders = entries.toArray

  private var parent: WritableColumnVector = _
  private var children: Array[WritableColumnVector] = _

  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = {
    if (vector ne parent) {
      parent = vector
      children = if (decoders.length == 1) Array(vector.arrayData()) else Array(vector.getChild(0), vector.getChild(1))
    }
    val start = appended
    var block = if (map) in.readMapStart() else in.readArrayStart()
    while (block > 0) {
      val end = appended + block.toInt
      children.foreach(_.reserve(end))
      while (appended < end) {
        var e = 0
        while (e < decoders.length) { decoders(e).decode(in, children(e), appended); e += 1 }
        appended += 1
      }
      block = if (map) in.mapNext() else in.arrayNext()
    }
    vector.putArray(r, start, appended - start)
  }

  override def reset(): Unit = { appended = 0; decoders.foreach(_.reset()) }
}

/** A field of the file that is not read: skipped as its schema says. */
private final class Skip(schema: Schema) extends ValueDecoder {
  override def decode(in: Decoder, vector: WritableColumnVector, r: Int): Unit = Skip.skip(in, schema)
}

private object Skip {
  def skip(in: Decoder, schema: Schema): Unit = schema.getType match {
    case Type.NULL => in.readNull()
    case Type.BOOLEAN => in.readBoolean()
    case Type.INT | Type.ENUM => in.readInt()
    case Type.LONG => in.readLong()
    case Type.FLOAT => in.readFloat()
    case Type.DOUBLE => in.readDouble()
    case Type.STRING => in.skipString()
    case Type.BYTES => in.skipBytes()
    case Type.FIXED => in.skipFixed(schema.getFixedSize)
    case Type.UNION => skip(in, schema.getTypes.get(in.readIndex()))
    case Type.RECORD => schema.getFields.forEach(f => skip(in, f.schema()))
    case Type.ARRAY => repeat(in.readArrayStart(), () => in.arrayNext())(skip(in, schema.getElementType))
    case Type.MAP => repeat(in.readMapStart(), () => in.mapNext()) { in.skipString(); skip(in, schema.getValueType) }
  }

  private def repeat(first: Long, next: () => Long)(one: => Unit): Unit = {
    var block = first
    while (block > 0) {
      var i = 0L
      while (i < block) { one; i += 1 }
      block = next()
    }
  }
}
