package paimonspark.format.parquet

import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.column.{ColumnDescriptor, ParquetProperties}
import org.apache.parquet.column.statistics.Statistics


/** A column of BOOLEAN values: plain, one bit each, lowest bit first (Parquet's v1 format has no dictionary for them). */
final class BooleanChunkWriter(descriptor: ColumnDescriptor, props: ParquetProperties)
    extends ColumnChunkWriter(descriptor, props, dictionaryEnabled = false) {
  private var bits = new Array[Byte](128)
  private var n = 0
  private var trues = 0

  def add(v: Boolean): Unit = {
    if (n == bits.length * 8) bits = java.util.Arrays.copyOf(bits, bits.length * 2)
    if (v) {
      bits(n >> 3) = (bits(n >> 3) | (1 << (n & 7))).toByte
      trues += 1
    }
    n += 1
    // parquet-mr counts a page of booleans by its packed bytes.
    added(present = true, if ((n & 7) == 1) 1 else 0)
  }

  override protected def plainBytes(): BytesInput = BytesInput.from(java.util.Arrays.copyOf(bits, (n + 7) >> 3))

  override protected def statistics(): Statistics[_] = {
    val stats: Statistics[_] = Statistics.createStats(descriptor.getPrimitiveType)
    stats.incrementNumNulls(nulls)
    if (n > trues) stats.updateStats(false)
    if (trues > 0) stats.updateStats(true)
    stats
  }

  override protected def clearPage(): Unit = {
    java.util.Arrays.fill(bits, 0, (n + 7) >> 3, 0.toByte)
    n = 0
    trues = 0
  }
}
