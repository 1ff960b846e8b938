package paimonspark.format.parquet

import scala.annotation.switch
import scala.jdk.CollectionConverters._

import org.apache.parquet.column.{ColumnDescriptor, ParquetProperties}
import org.apache.parquet.column.page.PageWriteStore
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.vectorized.ColumnVector

import paimonspark.format.{AtomicType, DataField, DataType, TypeRoot}


/**
 * Writes rows of a schema without nested columns into one [[ColumnChunkWriter]] per column, each
 * value encoded as Paimon's Parquet writer encodes it ([[ParquetRecordWriter]]; timestamps in the
 * unit of their precision): no record assembly, and no chain of parquet-mr calls per value. Used when the file's
 * settings are ones the chunk writers produce parquet-mr's bytes for (v1 pages, no bloom filters,
 * no byte-stream-split, statistics on).
 */
final class FlatRowWriter private (kinds: Array[Int], descriptors: Array[ColumnDescriptor], props: ParquetProperties) {
  import FlatRowWriter._

  private val chunks: Array[ColumnChunkWriter] = descriptors.indices.map { i =>
    val d = descriptors(i)
    kinds(i) match {
      case Bool => new BooleanChunkWriter(d, props)
      case Utf8 | Bytes | DecimalFixed => new BinaryChunkWriter(d, props, props.isDictionaryEnabled(d))
      case _ => new PrimitiveChunkWriter(d, props, props.isDictionaryEnabled(d))
    }
  }.toArray
  // The same writers by type: one call site per kind below, each with a single target.
  private val primitives = chunks.map { case c: PrimitiveChunkWriter => c; case _ => null }
  private val binaries = chunks.map { case c: BinaryChunkWriter => c; case _ => null }
  private val booleans = chunks.map { case c: BooleanChunkWriter => c; case _ => null }
  private val required = descriptors.map(_.getMaxDefinitionLevel == 0)
  private val decimals = descriptors.map { d =>
    d.getPrimitiveType.getLogicalTypeAnnotation match {
      case decimal: LogicalTypeAnnotation.DecimalLogicalTypeAnnotation => (decimal.getPrecision, decimal.getScale)
      case _ => (0, 0)
    }
  }

  /** Starts a row group: each column writes its pages to its page writer in `pages`. */
  def bind(pages: PageWriteStore): Unit = descriptors.indices.foreach(i => chunks(i).bind(pages.getPageWriter(descriptors(i))))

  def write(row: InternalRow): Unit = {
    var i = 0
    while (i < kinds.length) {
      if (row.isNullAt(i)) addNull(i)
      else (kinds(i): @switch) match {
        case Long64 => primitives(i).add(row.getLong(i))
        case Millis64 => primitives(i).add(TimestampUnit.millis(row.getLong(i)))
        case Int32 => primitives(i).add(row.getInt(i).toLong)
        case Double64 => primitives(i).add(java.lang.Double.doubleToLongBits(row.getDouble(i)))
        case Utf8 => binaries(i).add(row.getUTF8String(i))
        case Byte8 => primitives(i).add(row.getByte(i).toLong)
        case Short16 => primitives(i).add(row.getShort(i).toLong)
        case Float32 => primitives(i).add(java.lang.Float.floatToIntBits(row.getFloat(i)).toLong)
        case Bool => booleans(i).add(row.getBoolean(i))
        case Bytes => binaries(i).add(row.getBinary(i))
        case Decimal32 | Decimal64 =>
          val (p, s) = decimals(i)
          primitives(i).add(row.getDecimal(i, p, s).toUnscaledLong)
        case DecimalFixed =>
          val (p, s) = decimals(i)
          binaries(i).add(DecimalBytes.fixed(row.getDecimal(i, p, s), descriptors(i).getPrimitiveType.getTypeLength))
      }
      i += 1
    }
  }

  /**
   * Writes rows `from` until `from + count` of `columns`, one column after the other, each value
   * as [[write]] writes it: one loop per column over values of one type.
   */
  def writeColumns(columns: Array[ColumnVector], from: Int, count: Int): Unit = {
    val end = from + count
    var i = 0
    while (i < kinds.length) {
      val c = columns(i)
      var r = from
      (kinds(i): @switch) match {
        case Long64 => val w = primitives(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getLong(r)); r += 1 }
        case Millis64 => val w = primitives(i); while (r < end) { if (!nullAt(i, c, r)) w.add(TimestampUnit.millis(c.getLong(r))); r += 1 }
        case Int32 => val w = primitives(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getInt(r).toLong); r += 1 }
        case Double64 =>
          val w = primitives(i)
          while (r < end) { if (!nullAt(i, c, r)) w.add(java.lang.Double.doubleToLongBits(c.getDouble(r))); r += 1 }
        case Utf8 => val w = binaries(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getUTF8String(r)); r += 1 }
        case Byte8 => val w = primitives(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getByte(r).toLong); r += 1 }
        case Short16 => val w = primitives(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getShort(r).toLong); r += 1 }
        case Float32 =>
          val w = primitives(i)
          while (r < end) { if (!nullAt(i, c, r)) w.add(java.lang.Float.floatToIntBits(c.getFloat(r)).toLong); r += 1 }
        case Bool => val w = booleans(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getBoolean(r)); r += 1 }
        case Bytes => val w = binaries(i); while (r < end) { if (!nullAt(i, c, r)) w.add(c.getBinary(r)); r += 1 }
        case Decimal32 | Decimal64 =>
          val (w, (p, s)) = (primitives(i), decimals(i))
          while (r < end) { if (!nullAt(i, c, r)) w.add(c.getDecimal(r, p, s).toUnscaledLong); r += 1 }
        case DecimalFixed =>
          val (w, (p, s), width) = (binaries(i), decimals(i), descriptors(i).getPrimitiveType.getTypeLength)
          while (r < end) { if (!nullAt(i, c, r)) w.add(DecimalBytes.fixed(c.getDecimal(r, p, s), width)); r += 1 }
      }
      i += 1
    }
  }

  /** Whether row `r` of `c`, column `i`, is null, written as such. */
  private def nullAt(i: Int, c: ColumnVector, r: Int): Boolean = c.isNullAt(r) && { addNull(i); true }

  private def addNull(i: Int): Unit = {
    if (required(i)) throw new IllegalStateException(s"column ${descriptors(i).getPath.mkString(".")} is required but null")
    chunks(i).addNull()
  }

  /** What the row group holds so far, as parquet-mr's column writers count it to end row groups. */
  def bufferedSize: Long = chunks.iterator.map(_.bufferedSize).sum

  /** Ends the row group's chunks: their last pages and dictionary pages go to the page writers. */
  def finishRowGroup(): Unit = chunks.foreach(_.finish())

  def close(): Unit = chunks.foreach(_.close())
}

object FlatRowWriter {
  // The kinds [[FlatRowWriter.write]] switches on.
  private final val Long64 = 0
  private final val Int32 = 1
  private final val Double64 = 2
  private final val Utf8 = 3
  private final val Byte8 = 4
  private final val Short16 = 5
  private final val Float32 = 6
  private final val Bool = 7
  private final val Bytes = 8
  private final val Decimal32 = 9
  private final val Decimal64 = 10
  private final val DecimalFixed = 11
  private final val Millis64 = 12

  /**
   * A writer for `schema` as `parquet` lays it out, if every column is a top-level primitive of a
   * type written here, stored as the physical type this writer produces, and `props` ask for
   * nothing but what the chunk writers encode; else None.
   */
  def of(fields: Seq[DataField], parquet: MessageType, props: ParquetProperties): Option[FlatRowWriter] = {
    val descriptors = parquet.getColumns.asScala.toArray
    val kinds = fields.map(f => kind(f.dataType)).toArray
    val flat = descriptors.length == kinds.length && descriptors.indices.forall { i =>
      val d = descriptors(i)
      d.getPath.length == 1 && d.getMaxRepetitionLevel == 0 &&
        kinds(i).exists(_._1 == d.getPrimitiveType.getPrimitiveTypeName) &&
        !props.isBloomFilterEnabled(d) && !props.isByteStreamSplitEnabled(d) &&
        props.getStatisticsEnabled(d) && props.getSizeStatisticsEnabled(d)
    }
    if (flat && props.getWriterVersion == ParquetProperties.WriterVersion.PARQUET_1_0) {
      Some(new FlatRowWriter(kinds.map(_.get._2), descriptors, props))
    } else None
  }

  private def kind(t: DataType): Option[(PrimitiveTypeName, Int)] = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => Some(BOOLEAN -> Bool)
      case TypeRoot.TinyInt => Some(INT32 -> Byte8)
      case TypeRoot.SmallInt => Some(INT32 -> Short16)
      case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => Some(INT32 -> Int32)
      case TypeRoot.BigInt => Some(INT64 -> Long64)
      case TypeRoot.Float => Some(FLOAT -> Float32)
      case TypeRoot.Double => Some(DOUBLE -> Double64)
      case TypeRoot.Char | TypeRoot.VarChar => Some(BINARY -> Utf8)
      case TypeRoot.Binary | TypeRoot.VarBinary => Some(BINARY -> Bytes)
      case TypeRoot.Decimal if a.precision <= 9 => Some(INT32 -> Decimal32)
      case TypeRoot.Decimal if a.precision <= 18 => Some(INT64 -> Decimal64)
      case TypeRoot.Decimal => Some(FIXED_LEN_BYTE_ARRAY -> DecimalFixed)
      // INT96 values are left to parquet-mr's own writers.
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz => TimestampUnit.of(a.precision) match {
        case TimestampUnit.Millis => Some(INT64 -> Millis64)
        case TimestampUnit.Micros => Some(INT64 -> Long64)
        case TimestampUnit.Int96 => None
      }
      case _ => None
    }
    case _ => None
  }
}
