package paimonspark.format.parquet

import java.nio.{ByteBuffer, ByteOrder}
import java.util.Arrays

import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.column.{ColumnDescriptor, ParquetProperties}
import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.PrimitiveComparator
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String


/**
 * A column of BINARY values (with a dictionary while it pays) or FIXED_LEN_BYTE_ARRAY values (plain:
 * Parquet's v1 format has no dictionary for them). A page's values are copied once, into one arena.
 */
final class BinaryChunkWriter(descriptor: ColumnDescriptor, props: ParquetProperties, dictionaryEnabled: Boolean)
    extends ColumnChunkWriter(descriptor, props,
      dictionaryEnabled && descriptor.getPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY) {
  private val fixed = descriptor.getPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
  private val prefix = if (fixed) 0 else 4 // plain BINARY values carry their length
  // Unsigned byte order (strings, plain binary) is compared here; any other order by parquet-mr per value.
  private val unsignedOrder = !fixed &&
    descriptor.getPrimitiveType.comparator() == PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR
  private val dictionary = new BinaryDictionary
  private var arena = new Array[Byte](1 << 14)
  private var offsets = new Array[Int](1025) // value i is arena[offsets(i), offsets(i + 1))
  private var n = 0

  def add(s: UTF8String): Unit = {
    val length = s.numBytes
    val at = reserve(length)
    s.writeToMemory(arena, Platform.BYTE_ARRAY_OFFSET + at)
    added(present = true, prefix + length)
  }

  def add(bytes: Array[Byte]): Unit = {
    val at = reserve(bytes.length)
    System.arraycopy(bytes, 0, arena, at, bytes.length)
    added(present = true, prefix + bytes.length)
  }

  private def reserve(length: Int): Int = {
    if (n + 1 == offsets.length) offsets = Arrays.copyOf(offsets, offsets.length * 2)
    val at = offsets(n)
    if (at + length > arena.length) arena = Arrays.copyOf(arena, math.max(arena.length * 2, at + length))
    n += 1
    offsets(n) = at + length
    at
  }

  override protected def clearDictionary(): Unit = dictionary.clear()
  override protected def dictionarySize: Int = dictionary.size
  override protected def dictionaryByteSize: Long = dictionary.byteSize
  override protected def clearPage(): Unit = n = 0
  override protected def unencodedBytes: Long = if (fixed) 0L else offsets(n).toLong

  override protected def assignIds(): Boolean = {
    reserveIds(n)
    var i = 0
    while (i < n) {
      ids(i) = dictionary.idOf(arena, offsets(i), offsets(i + 1) - offsets(i))
      if (dictionary.byteSize > dictionaryLimit) return false
      i += 1
    }
    true
  }

  override protected def plainBytes(): BytesInput = BytesInput.from(plain(arena, offsets, n))

  override protected def dictionaryPage(entries: Int): BytesInput = {
    val bounds = new Array[Int](entries + 1)
    var i = 0
    while (i <= entries) { bounds(i) = if (i < entries) dictionary.start(i) else dictionary.end(entries - 1); i += 1 }
    BytesInput.from(plain(dictionary.bytes, bounds, entries))
  }

  private def plain(bytes: Array[Byte], bounds: Array[Int], count: Int): Array[Byte] = {
    val out = ByteBuffer.allocate(bounds(count) - bounds(0) + prefix * count).order(ByteOrder.LITTLE_ENDIAN)
    var i = 0
    while (i < count) {
      val length = bounds(i + 1) - bounds(i)
      if (!fixed) out.putInt(length)
      out.put(bytes, bounds(i), length)
      i += 1
    }
    out.array()
  }

  override protected def statistics(): Statistics[_] = {
    val stats: Statistics[_] = Statistics.createStats(descriptor.getPrimitiveType)
    stats.incrementNumNulls(nulls)
    if (n > 0 && unsignedOrder) {
      var min = 0
      var max = 0
      var i = 1
      while (i < n) {
        if (compare(i, min) < 0) min = i
        if (compare(i, max) > 0) max = i
        i += 1
      }
      stats.updateStats(value(min))
      stats.updateStats(value(max))
    } else {
      var i = 0
      while (i < n) { stats.updateStats(value(i)); i += 1 }
    }
    stats
  }

  private def compare(a: Int, b: Int): Int =
    Arrays.compareUnsigned(arena, offsets(a), offsets(a + 1), arena, offsets(b), offsets(b + 1))

  private def value(i: Int): Binary = Binary.fromConstantByteArray(Arrays.copyOfRange(arena, offsets(i), offsets(i + 1)))
}
