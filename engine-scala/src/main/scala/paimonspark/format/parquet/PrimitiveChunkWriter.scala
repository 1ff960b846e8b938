package paimonspark.format.parquet

import java.nio.{ByteBuffer, ByteOrder}
import java.util.Arrays

import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.column.{ColumnDescriptor, ParquetProperties}
import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName


/**
 * A column of INT32, INT64, FLOAT or DOUBLE values, each buffered as 64 bits (ints sign-extended,
 * floats and doubles as their canonical bits, which are what their plain encoding writes and what
 * parquet-mr's dictionaries key them by).
 */
final class PrimitiveChunkWriter(descriptor: ColumnDescriptor, props: ParquetProperties, dictionaryEnabled: Boolean)
    extends ColumnChunkWriter(descriptor, props, dictionaryEnabled) {
  private val kind = descriptor.getPrimitiveType.getPrimitiveTypeName
  private val width = kind match {
    case PrimitiveTypeName.INT32 | PrimitiveTypeName.FLOAT => 4
    case PrimitiveTypeName.INT64 | PrimitiveTypeName.DOUBLE => 8
    case other => throw new IllegalArgumentException(s"not a primitive of 32 or 64 bits: $other")
  }
  private val dictionary = new LongDictionary(width)
  private var values = new Array[Long](1024)
  private var n = 0 // values in the page, nulls not counted

  def add(v: Long): Unit = {
    if (n == values.length) values = Arrays.copyOf(values, n * 2)
    values(n) = v
    n += 1
    added(present = true, width)
  }

  override protected def clearDictionary(): Unit = dictionary.clear()
  override protected def dictionarySize: Int = dictionary.size
  override protected def dictionaryByteSize: Long = dictionary.byteSize
  override protected def clearPage(): Unit = n = 0

  override protected def assignIds(): Boolean = {
    reserveIds(n)
    var i = 0
    while (i < n) {
      ids(i) = dictionary.idOf(values(i))
      if (dictionary.byteSize > dictionaryLimit) return false
      i += 1
    }
    true
  }

  override protected def plainBytes(): BytesInput = BytesInput.from(plain(values, n))

  override protected def dictionaryPage(entries: Int): BytesInput = BytesInput.from(plain(dictionary.entries, entries))

  private def plain(from: Array[Long], count: Int): Array[Byte] = {
    val out = ByteBuffer.allocate(count * width).order(ByteOrder.LITTLE_ENDIAN)
    var i = 0
    if (width == 8) while (i < count) { out.putLong(from(i)); i += 1 }
    else while (i < count) { out.putInt(from(i).toInt); i += 1 }
    out.array()
  }

  override protected def statistics(): Statistics[_] = {
    val stats: Statistics[_] = Statistics.createStats(descriptor.getPrimitiveType)
    stats.incrementNumNulls(nulls)
    if (n > 0) kind match {
      case PrimitiveTypeName.INT32 | PrimitiveTypeName.INT64 =>
        var min = values(0)
        var max = min
        var i = 1
        while (i < n) {
          val v = values(i)
          if (v < min) min = v
          if (v > max) max = v
          i += 1
        }
        if (width == 4) { stats.updateStats(min.toInt); stats.updateStats(max.toInt) }
        else { stats.updateStats(min); stats.updateStats(max) }
      // Floating point bounds keep parquet-mr's own rules (NaN, signed zeros): its statistics see each value.
      case PrimitiveTypeName.FLOAT =>
        var i = 0
        while (i < n) { stats.updateStats(java.lang.Float.intBitsToFloat(values(i).toInt)); i += 1 }
      case _ =>
        var i = 0
        while (i < n) { stats.updateStats(java.lang.Double.longBitsToDouble(values(i))); i += 1 }
    }
    stats
  }
}
