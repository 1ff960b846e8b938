package paimonspark.format.orc

import java.time.{Instant, LocalDateTime, ZoneOffset}
import java.util.Properties

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.hive.common.`type`.HiveDecimal
import org.apache.hadoop.hive.ql.exec.vector._
import org.apache.orc.{CompressionKind, OrcConf, OrcFile, TypeDescription}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.{ArrayType => SparkArrayType, BinaryType, BooleanType, ByteType, DataType => SparkType,
  DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType, MapType => SparkMapType, ShortType, StringType,
  StructType, TimestampNTZType, TimestampType}

import paimonspark.format.{ArrayType, AtomicType, DataField, DataFileWriter, DataType, DataTypes, FileStats,
  FileWriteSpec, MapType, MultisetType, NestedFieldIds, RowStats, RowType, SparkTypes, TypeRoot}


/**
 * Writes one ORC data file as Paimon's ORC writer does: its types and `paimon.id` field ids
 * ([[OrcSchema]]), TIMESTAMP as ORC wall clocks in this JVM's zone and TIMESTAMP_LTZ as Paimon's
 * `orc.timestamp-ltz.legacy.type` says, the table's `orc.*` options handed to ORC's writer, and
 * `file.compression` as ORC's codec (`gzip` is ORC's zlib). ORC keeps its statistics in its own
 * terms (wall-clock timestamps), so the manifest's are gathered from the rows ([[RowStats]]).
 */
final class OrcDataFile(fs: FileSystem, path: Path, fields: Seq[DataField], conf: Configuration, spec: FileWriteSpec)
    extends DataFileWriter {
  private val schema = SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false))
  private val legacyLtz = spec.formatOptions.getOrElse(OrcDataFile.LegacyLtz, "true").trim.equalsIgnoreCase("true")
  private val writer = {
    val properties = new Properties()
    properties.setProperty(OrcConf.COMPRESSION_ZSTD_LEVEL.getAttribute, spec.zstdLevel.toString)
    spec.formatOptions.foreach { case (k, v) => if (k.startsWith("orc.")) properties.setProperty(k, v) }
    OrcFile.createWriter(path, OrcFile.writerOptions(properties, conf).setSchema(OrcSchema.of(fields))
      .compress(OrcDataFile.codec(spec.compression)).fileSystem(fs).overwrite(false))
  }
  private val batch = writer.getSchema.createRowBatch()
  private val columns = schema.fields.map(f => OrcColumn.of(f.dataType, legacyLtz))
  private val stats = new RowStats(schema)
  private var rows = 0L
  private var written = -1L

  override def write(row: InternalRow): Unit = {
    val r = batch.size
    var i = 0
    while (i < columns.length) { columns(i).write(row, i, batch.cols(i), r); i += 1 }
    batch.size += 1
    stats.update(row)
    rows += 1
    if (batch.size == batch.getMaxSize) flush()
  }

  override def rowCount: Long = rows

  override def estimatedSize: Long = writer.getStripes.asScala.map(_.getLength).sum + writer.estimateMemory()

  override def close(): FileStats = {
    flush()
    writer.close()
    written = fs.getFileStatus(path).getLen
    stats
  }

  override def length: Long = written

  override def abort(): Unit = try writer.close() catch { case _: Exception => () }

  private def flush(): Unit = if (batch.size > 0) {
    writer.addRowBatch(batch)
    batch.reset()
  }
}

object OrcDataFile {
  val SupportedCodecs: Set[String] = Set("zstd", "snappy", "gzip", "zlib", "lz4", "none", "uncompressed")

  val LegacyLtz = "orc.timestamp-ltz.legacy.type"

  def codec(name: String): CompressionKind = name.trim.toLowerCase match {
    case "zstd" => CompressionKind.ZSTD
    case "snappy" => CompressionKind.SNAPPY
    case "gzip" | "zlib" => CompressionKind.ZLIB
    case "lz4" => CompressionKind.LZ4
    case "none" | "uncompressed" => CompressionKind.NONE
    case other => throw new IllegalArgumentException(s"unsupported file.compression '$other' for ORC files")
  }
}

/** ORC's types for Paimon's, with Paimon's field ids (`paimon.id`) on every field, element, key and value. */
object OrcSchema {
  private val IdKey = "paimon.id"

  def of(fields: Seq[DataField]): TypeDescription = {
    val struct = TypeDescription.createStruct()
    fields.foreach(f => struct.addField(f.name, of(f.dataType, f.id, 0).setAttribute(IdKey, f.id.toString)))
    struct
  }

  private def of(t: DataType, id: Int, depth: Int): TypeDescription = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => TypeDescription.createBoolean()
      case TypeRoot.TinyInt => TypeDescription.createByte()
      case TypeRoot.SmallInt => TypeDescription.createShort()
      case TypeRoot.Int | TypeRoot.Time => TypeDescription.createInt()
      case TypeRoot.BigInt => TypeDescription.createLong()
      case TypeRoot.Float => TypeDescription.createFloat()
      case TypeRoot.Double => TypeDescription.createDouble()
      case TypeRoot.Date => TypeDescription.createDate()
      case TypeRoot.Decimal => TypeDescription.createDecimal().withScale(a.scale).withPrecision(a.precision)
      case TypeRoot.Char => TypeDescription.createChar().withMaxLength(a.params.head)
      case TypeRoot.VarChar if a.params.head == Int.MaxValue => TypeDescription.createString()
      case TypeRoot.VarChar => TypeDescription.createVarchar().withMaxLength(a.params.head)
      case TypeRoot.Binary | TypeRoot.VarBinary => TypeDescription.createBinary()
      case TypeRoot.Timestamp => TypeDescription.createTimestamp()
      case TypeRoot.TimestampLtz => TypeDescription.createTimestampInstant()
      case other => throw new IllegalArgumentException(s"$other columns are not written to ORC files")
    }
    case a: ArrayType => TypeDescription.createList(of(a.element, id, depth + 1)
      .setAttribute(IdKey, NestedFieldIds.element(id, depth + 1).toString))
    case m: MapType => map(m.key, m.value, id, depth)
    case m: MultisetType => map(m.element, DataTypes.int.withNullable(false), id, depth)
    case r: RowType => of(r.fields)
  }

  private def map(key: DataType, value: DataType, id: Int, depth: Int): TypeDescription = TypeDescription.createMap(
    of(key, id, depth + 1).setAttribute(IdKey, NestedFieldIds.key(id, depth + 1).toString),
    of(value, id, depth + 1).setAttribute(IdKey, NestedFieldIds.value(id, depth + 1).toString))
}

/** Puts a value of a Spark row, array or struct into an ORC column vector. */
private abstract class OrcColumn {
  final def write(from: SpecializedGetters, ordinal: Int, vector: ColumnVector, r: Int): Unit =
    if (from.isNullAt(ordinal)) { vector.noNulls = false; vector.isNull(r) = true }
    else { vector.isNull(r) = false; put(from, ordinal, vector, r) }

  protected def put(from: SpecializedGetters, ordinal: Int, vector: ColumnVector, r: Int): Unit
}

private object OrcColumn {
  private def long(get: (SpecializedGetters, Int) => Long): OrcColumn = new OrcColumn {
    override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit =
      v.asInstanceOf[LongColumnVector].vector(r) = get(from, o)
  }

  private def double(get: (SpecializedGetters, Int) => Double): OrcColumn = new OrcColumn {
    override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit =
      v.asInstanceOf[DoubleColumnVector].vector(r) = get(from, o)
  }

  private def bytes(get: (SpecializedGetters, Int) => Array[Byte]): OrcColumn = new OrcColumn {
    override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit =
      v.asInstanceOf[BytesColumnVector].setVal(r, get(from, o))
  }

  /** A timestamp as ORC's writer takes it: a java.sql.Timestamp of the instant `micros` names. */
  private def timestamp(instant: Long => Instant): OrcColumn = new OrcColumn {
    override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit =
      v.asInstanceOf[TimestampColumnVector].set(r, java.sql.Timestamp.from(instant(from.getLong(o))))
  }

  /** Gives row `r` of a list or map vector the next `n` child entries; returns where they start. */
  private def claim(v: MultiValuedColumnVector, r: Int, n: Int): Int = {
    val start = v.childCount
    v.offsets(r) = start
    v.lengths(r) = n
    v.childCount += n
    start
  }

  private def micros(m: Long): Instant = Instant.ofEpochSecond(Math.floorDiv(m, 1000000L), Math.floorMod(m, 1000000L) * 1000L)

  /** A wall clock (micros of its UTC reading) as the instant it names in this JVM's zone, as Paimon's `toSQLTimestamp`. */
  private def wallClock(m: Long): Instant =
    java.sql.Timestamp.valueOf(LocalDateTime.ofInstant(micros(m), ZoneOffset.UTC)).toInstant

  def of(t: SparkType, legacyLtz: Boolean): OrcColumn = t match {
    case BooleanType => long((g, o) => if (g.getBoolean(o)) 1L else 0L)
    case ByteType => long(_.getByte(_).toLong)
    case ShortType => long(_.getShort(_).toLong)
    case IntegerType | DateType => long(_.getInt(_).toLong)
    case LongType => long(_.getLong(_))
    case FloatType => double(_.getFloat(_).toDouble)
    case DoubleType => double(_.getDouble(_))
    case _: StringType => bytes(_.getUTF8String(_).getBytes)
    case BinaryType => bytes(_.getBinary(_))
    case d: DecimalType => new OrcColumn {
      override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit =
        v.asInstanceOf[DecimalColumnVector].set(r, HiveDecimal.create(from.getDecimal(o, d.precision, d.scale).toJavaBigDecimal))
    }
    case TimestampNTZType => timestamp(wallClock)
    case TimestampType => timestamp(if (legacyLtz) wallClock else micros)
    case a: SparkArrayType => new OrcColumn {
      private val element = of(a.elementType, legacyLtz)
      override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit = {
        val list = v.asInstanceOf[ListColumnVector]
        val values = from.getArray(o)
        val start = claim(list, r, values.numElements())
        list.child.ensureSize(list.childCount, true)
        (0 until values.numElements()).foreach(i => element.write(values, i, list.child, start + i))
      }
    }
    case m: SparkMapType => new OrcColumn {
      private val (key, value) = (of(m.keyType, legacyLtz), of(m.valueType, legacyLtz))
      override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit = {
        val map = v.asInstanceOf[MapColumnVector]
        val entries = from.getMap(o)
        val start = claim(map, r, entries.numElements())
        map.keys.ensureSize(map.childCount, true)
        map.values.ensureSize(map.childCount, true)
        (0 until entries.numElements()).foreach { i =>
          key.write(entries.keyArray(), i, map.keys, start + i)
          value.write(entries.valueArray(), i, map.values, start + i)
        }
      }
    }
    case s: StructType => new OrcColumn {
      private val children = s.fields.map(f => of(f.dataType, legacyLtz))
      override protected def put(from: SpecializedGetters, o: Int, v: ColumnVector, r: Int): Unit = {
        val struct = v.asInstanceOf[StructColumnVector]
        val row = from.getStruct(o, children.length)
        children.indices.foreach(i => children(i).write(row, i, struct.fields(i), r))
      }
    }
    case other => throw new IllegalArgumentException(s"${other.sql} columns are not written to ORC files")
  }
}
