package paimonspark.format.parquet

import java.io.ByteArrayOutputStream

import com.github.luben.zstd.{Zstd, ZstdCompressCtx}
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor
import org.apache.parquet.hadoop.metadata.CompressionCodecName

/**
 * Zstandard compression of a file's pages, each in one call through one native context kept for the
 * file. Parquet's own compressor opens a stream per page: a new context set up for every page, and
 * the page's bytes copied through the stream's buffers on both sides. The frames are standard
 * Zstandard frames (their header holds the content size), which every Parquet reader decompresses.
 */
final class ZstdPageCompressor(level: Int) extends BytesInputCompressor {
  private val context = new ZstdCompressCtx().setLevel(level)
  private val page = new PageBytes
  private var output = new Array[Byte](0)

  /** The result is valid until the next call: Parquet copies it first, as it does with its own compressor's. */
  override def compress(bytes: BytesInput): BytesInput = {
    page.reset()
    bytes.writeAllTo(page)
    val bound = Zstd.compressBound(page.size).toInt
    if (output.length < bound) output = new Array[Byte](bound)
    val n = context.compressByteArray(output, 0, output.length, page.bytes, 0, page.size)
    BytesInput.from(output, 0, n)
  }

  override def getCodecName: CompressionCodecName = CompressionCodecName.ZSTD

  override def release(): Unit = context.close()

  /** A page's uncompressed bytes, gathered into one array kept from page to page. */
  private final class PageBytes extends ByteArrayOutputStream(1 << 20) {
    def bytes: Array[Byte] = buf
  }
}
