package paimonspark.format.avro

import org.apache.avro.{LogicalType, LogicalTypes, Schema, SchemaBuilder}
import org.apache.avro.file.{CodecFactory, DataFileWriter => AvroFileWriter}
import org.apache.avro.io.{DatumWriter, Encoder}
import org.apache.parquet.io.PositionOutputStream
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters

import paimonspark.format.{ArrayType, AtomicType, DataField, DataFileWriter, DataType, FileStats, FileWriteSpec,
  MapType, MultisetType, RowStats, RowType, SparkTypes, TypeRoot}

/**
 * Writes one Avro data file as Paimon's Avro writer does: its record schema ([[AvroSchema]]), rows
 * encoded straight from Spark's rows (no Avro records are built), `file.compression` as Avro's codec
 * (`avro.codec` overrides it, as in Paimon). Avro files keep no statistics, so the manifest's are
 * gathered from the rows ([[RowStats]]).
 */
final class AvroDataFile(out: PositionOutputStream, fields: Seq[DataField], spec: FileWriteSpec) extends DataFileWriter {
  private val schema = SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false))
  private val avroSchema = AvroSchema.of(fields)
  private val record = AvroEncoding.record(fields)
  private val writer = new AvroFileWriter[InternalRow](new DatumWriter[InternalRow] {
    override def setSchema(schema: Schema): Unit = ()
    override def write(row: InternalRow, out: Encoder): Unit = record(row, out)
  }).setCodec(AvroDataFile.codec(spec)).create(avroSchema, out)
  private val stats = new RowStats(schema)
  private var rows = 0L
  private var written = -1L

  override def write(row: InternalRow): Unit = {
    writer.append(row)
    stats.update(row)
    rows += 1
  }

  override def rowCount: Long = rows
  override def estimatedSize: Long = out.getPos

  override def close(): FileStats = {
    writer.flush()
    written = out.getPos
    writer.close()
    stats
  }

  override def length: Long = written

  override def abort(): Unit = try writer.close() catch { case _: Exception => () }
}

object AvroDataFile {
  val CodecOption = "avro.codec"

  /** The codecs Avro writes; `file.compression` names them as Paimon does (`gzip` is Avro's deflate). */
  val SupportedCodecs: Set[String] = Set("zstd", "snappy", "gzip", "deflate", "none", "uncompressed")

  def codec(spec: FileWriteSpec): CodecFactory = spec.formatOptions.get(CodecOption) match {
    case Some(name) => CodecFactory.fromString(name.trim)
    case None => spec.compression.trim.toLowerCase match {
      case "zstd" => CodecFactory.zstandardCodec(spec.zstdLevel)
      case "snappy" => CodecFactory.snappyCodec()
      case "gzip" | "deflate" => CodecFactory.deflateCodec(CodecFactory.DEFAULT_DEFLATE_LEVEL)
      case "none" | "uncompressed" => CodecFactory.nullCodec()
      case other => throw new IllegalArgumentException(s"unsupported file.compression '$other' for Avro files")
    }
  }
}

/** The Avro schema of a data file, as Paimon's `AvroSchemaConverter` derives it. */
object AvroSchema {
  private val RecordName = "org.apache.paimon.avro.generated.record"

  def of(fields: Seq[DataField]): Schema = record(fields, RecordName)

  private def record(fields: Seq[DataField], name: String): Schema = {
    val assembler = fields.foldLeft(SchemaBuilder.builder().record(name).fields()) { (builder, f) =>
      val typed = builder.name(f.name).`type`(of(f.dataType, s"${name}_${f.name}"))
      if (f.dataType.nullable) typed.withDefault(null) else typed.noDefault()
    }
    assembler.endRecord()
  }

  private def of(t: DataType, name: String): Schema = {
    val plain = t match {
      case a: AtomicType => atomic(a)
      case r: RowType => record(r.fields, name)
      case a: ArrayType => SchemaBuilder.builder().array().items(of(a.element, name))
      case m: MapType if AvroEncoding.stringKeys(m) => SchemaBuilder.builder().map().values(of(m.value, name))
      case m: MapType =>
        val entry = SchemaBuilder.builder().record(name).fields()
          .name("key").`type`(of(m.key, s"${name}_key")).noDefault()
          .name("value").`type`(of(m.value, s"${name}_value"))
        val entries = if (m.value.nullable) entry.withDefault(null) else entry.noDefault()
        new LogicalType("map").addToSchema(SchemaBuilder.builder().array().items(entries.endRecord()))
      case other => throw new IllegalArgumentException(s"${other.getClass.getSimpleName} columns are not written to Avro files")
    }
    if (t.nullable) Schema.createUnion(Schema.create(Schema.Type.NULL), plain) else plain
  }

  private def atomic(a: AtomicType): Schema = {
    val b = SchemaBuilder.builder()
    def precision = a.params.headOption.getOrElse(6)
    a.root match {
      case TypeRoot.Boolean => b.booleanType()
      case TypeRoot.TinyInt | TypeRoot.SmallInt | TypeRoot.Int => b.intType()
      case TypeRoot.BigInt => b.longType()
      case TypeRoot.Float => b.floatType()
      case TypeRoot.Double => b.doubleType()
      case TypeRoot.Char | TypeRoot.VarChar => b.stringType()
      case TypeRoot.Binary | TypeRoot.VarBinary => b.bytesType()
      case TypeRoot.Date => LogicalTypes.date().addToSchema(b.intType())
      case TypeRoot.Time => LogicalTypes.timeMillis().addToSchema(b.intType())
      case TypeRoot.Decimal => LogicalTypes.decimal(a.precision, a.scale).addToSchema(b.bytesType())
      case TypeRoot.Timestamp =>
        (if (precision <= 3) LogicalTypes.timestampMillis() else LogicalTypes.timestampMicros()).addToSchema(b.longType())
      case TypeRoot.TimestampLtz =>
        (if (precision <= 3) LogicalTypes.localTimestampMillis() else LogicalTypes.localTimestampMicros())
          .addToSchema(b.longType())
      case other => throw new IllegalArgumentException(s"$other columns are not written to Avro files")
    }
  }

  /**
   * Why Paimon's Avro writer cannot hold a type, if it cannot: timestamps of more than 6 digits, TIME of
   * more than 3, and multisets (Paimon 1.4's Avro writer fails on them).
   */
  def unwritable(t: DataType): Option[String] = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz if a.precision > 6 =>
        Some(s"${a.typeName}: Avro data files hold timestamps of up to 6 digits of a second")
      case TypeRoot.Time if a.precision > 3 => Some(s"${a.typeName}: Avro data files hold TIME of up to 3 digits")
      case _ => None
    }
    case _: MultisetType => Some(s"${t.typeName}: Paimon's Avro writer does not write multisets")
    case a: ArrayType => unwritable(a.element)
    case m: MapType => unwritable(m.key).orElse(unwritable(m.value))
    case r: RowType => r.fields.iterator.flatMap(f => unwritable(f.dataType)).nextOption()
  }
}

/** Encodes values of Spark rows in the layout [[AvroSchema]] gives their Paimon types. */
private object AvroEncoding {
  type Field = (SpecializedGetters, Int, Encoder) => Unit

  def stringKeys(m: MapType): Boolean = m.key match {
    case a: AtomicType => a.root == TypeRoot.Char || a.root == TypeRoot.VarChar
    case _ => false
  }

  def record(fields: Seq[DataField]): (InternalRow, Encoder) => Unit = {
    val encoders = fields.map(f => of(f.dataType)).toArray
    (row, out) => { var i = 0; while (i < encoders.length) { encoders(i)(row, i, out); i += 1 } }
  }

  /** An Avro array of `n` items, each written by `item`. */
  private def items(out: Encoder, n: Int)(item: Int => Unit): Unit = {
    out.writeArrayStart()
    out.setItemCount(n)
    var i = 0
    while (i < n) { out.startItem(); item(i); i += 1 }
    out.writeArrayEnd()
  }

  private def of(t: DataType): Field = {
    val value = plain(t)
    if (!t.nullable) value
    else (g, o, out) => if (g.isNullAt(o)) { out.writeIndex(0); out.writeNull() } else { out.writeIndex(1); value(g, o, out) }
  }

  private def plain(t: DataType): Field = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => (g, o, out) => out.writeBoolean(g.getBoolean(o))
      case TypeRoot.TinyInt => (g, o, out) => out.writeInt(g.getByte(o).toInt)
      case TypeRoot.SmallInt => (g, o, out) => out.writeInt(g.getShort(o).toInt)
      case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => (g, o, out) => out.writeInt(g.getInt(o))
      case TypeRoot.BigInt => (g, o, out) => out.writeLong(g.getLong(o))
      case TypeRoot.Float => (g, o, out) => out.writeFloat(g.getFloat(o))
      case TypeRoot.Double => (g, o, out) => out.writeDouble(g.getDouble(o))
      // An Avro string is written as bytes are: a length and the UTF-8 bytes.
      case TypeRoot.Char | TypeRoot.VarChar => (g, o, out) => out.writeBytes(g.getUTF8String(o).getBytes)
      case TypeRoot.Binary | TypeRoot.VarBinary => (g, o, out) => out.writeBytes(g.getBinary(o))
      case TypeRoot.Decimal => (g, o, out) =>
        out.writeBytes(g.getDecimal(o, a.precision, a.scale).toJavaBigDecimal.unscaledValue().toByteArray)
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz if a.params.headOption.getOrElse(6) <= 3 =>
        (g, o, out) => out.writeLong(Math.floorDiv(g.getLong(o), 1000L))
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz => (g, o, out) => out.writeLong(g.getLong(o))
      case other => throw new IllegalArgumentException(s"$other columns are not written to Avro files")
    }
    case r: RowType =>
      val encoders = r.fields.map(f => of(f.dataType)).toArray
      (g, o, out) => {
        val row = g.getStruct(o, encoders.length)
        var i = 0
        while (i < encoders.length) { encoders(i)(row, i, out); i += 1 }
      }
    case a: ArrayType =>
      val element = of(a.element)
      (g, o, out) => {
        val values = g.getArray(o)
        items(out, values.numElements())(i => element(values, i, out))
      }
    case m: MapType if stringKeys(m) =>
      val value = of(m.value)
      (g, o, out) => {
        val entries = g.getMap(o)
        out.writeMapStart()
        out.setItemCount(entries.numElements())
        (0 until entries.numElements()).foreach { i =>
          out.startItem()
          out.writeBytes(entries.keyArray().getUTF8String(i).getBytes)
          value(entries.valueArray(), i, out)
        }
        out.writeMapEnd()
      }
    case m: MapType =>
      val (key, value) = (of(m.key), of(m.value))
      (g, o, out) => {
        val entries = g.getMap(o)
        items(out, entries.numElements()) { i =>
          key(entries.keyArray(), i, out)
          value(entries.valueArray(), i, out)
        }
      }
    case other => throw new IllegalArgumentException(s"${other.getClass.getSimpleName} columns are not written to Avro files")
  }
}
