package paimonspark.format.parquet

import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.hadoop.CodecFactory
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.scalatest.funsuite.AnyFunSuite

/** Pages compressed by [[ZstdPageCompressor]] decompress through Parquet's own Zstandard decompressor. */
class ZstdPageCompressorSuite extends AnyFunSuite {
  test("pages of every size, one after another through one context, decompress to their bytes through Parquet's codec") {
    val compressor = new ZstdPageCompressor(1)
    val codecs = new CodecFactory(new Configuration(), 1 << 20)
    val decompressor = codecs.getDecompressor(CompressionCodecName.ZSTD)
    val random = new Random(7)
    try {
      // Empty, small, repetitive and random pages, and one above the first page buffer's 1 MiB.
      val pages = Seq(Array.emptyByteArray, Array.fill(10)(1.toByte), Array.tabulate(300000)(i => (i % 17).toByte),
        Array.fill(70000)(random.nextInt().toByte), Array.tabulate(3 << 20)(i => (i / 1000).toByte))
      pages.foreach { page =>
        val compressed = compressor.compress(BytesInput.concat(BytesInput.from(page.take(5)), BytesInput.from(page.drop(5)))).toByteArray
        assert(compressor.getCodecName == CompressionCodecName.ZSTD)
        assert(decompressor.decompress(BytesInput.from(compressed), page.length).toByteArray sameElements page)
      }
    } finally {
      compressor.release()
      codecs.release()
    }
  }
}
