package paimonspark.bench

import java.io.ByteArrayInputStream
import java.lang.management.ManagementFactory
import java.nio.file.{Files, Paths}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.github.luben.zstd.ZstdDecompressCtx
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.format.{PageType, Util}
import org.apache.parquet.hadoop.{CodecFactory, ParquetFileReader}
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.hadoop.util.HadoopInputFile

/**
 * What decompressing a scan's Zstandard pages costs, for `bench/read_anchor.py`: the lever a Parquet
 * decoder of our own would have over Spark's. Every compressed page of the FILES (dictionary and
 * data pages; of a v2 data page its values, the levels being stored raw) is decompressed in this one
 * thread, ROUNDS times alternating: through parquet-java's codec factory, a Zstandard stream per page
 * as Spark's vectorized reader decompresses them, and with one native context, one call per page.
 * Prints one JSON line: pages, bytes before and after, and per round the thread's CPU seconds of each.
 * Run on Spark's classpath (without paimon-bundle), so both use the parquet-java and zstd-jni Spark reads with.
 *
 * usage: PageDecompression ROUNDS FILE...
 */
object PageDecompression {
  private final case class Page(bytes: Array[Byte], uncompressed: Int)

  def main(args: Array[String]): Unit = {
    val rounds = args(0).toInt
    val pages = args.drop(1).toSeq.flatMap(zstdPages)
    val threads = ManagementFactory.getThreadMXBean
    def cpu[A](work: => A): Double = {
      val start = threads.getCurrentThreadCpuTime
      work
      (threads.getCurrentThreadCpuTime - start) / 1e9
    }
    val stream = new CodecFactory(new Configuration(), 0).getDecompressor(CompressionCodecName.ZSTD)
    val context = new ZstdDecompressCtx()
    val out = new Array[Byte]((0 +: pages.map(_.uncompressed)).max)
    var check = 0L // read from every output, so no decompression is dead code
    val (streamed, oneCall) = (1 to rounds).map { _ =>
      (cpu(pages.foreach { p =>
        // As Spark's reader takes a page's bytes: as an input stream over the decompressed buffer.
        val bytes = stream.decompress(BytesInput.from(p.bytes), p.uncompressed).toInputStream
        bytes.skipFully(p.uncompressed - 1L)
        check += bytes.read()
      }), cpu(pages.foreach { p =>
        check += out(context.decompressByteArray(out, 0, p.uncompressed, p.bytes, 0, p.bytes.length) - 1)
      }))
    }.unzip
    context.close()
    println(s"""{"pages": ${pages.size}, "compressed_bytes": ${pages.map(_.bytes.length.toLong).sum}, """ +
      s""""uncompressed_bytes": ${pages.map(_.uncompressed.toLong).sum}, "stream_cpu_s": ${streamed.mkString("[", ", ", "]")}, """ +
      s""""one_call_cpu_s": ${oneCall.mkString("[", ", ", "]")}, "check": $check}""")
  }

  /** The compressed pages of the file's Zstandard column chunks, as stored. */
  private def zstdPages(file: String): Seq[Page] = {
    val bytes = Files.readAllBytes(Paths.get(file))
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), new Configuration()))
    val chunks = try reader.getFooter.getBlocks.asScala.flatMap(_.getColumns.asScala).toSeq finally reader.close()
    chunks.filter(_.getCodec == CompressionCodecName.ZSTD).flatMap { chunk =>
      val in = new ByteArrayInputStream(bytes, chunk.getStartingPos.toInt, chunk.getTotalSize.toInt)
      val pages = ArrayBuffer.empty[Page]
      while (in.available() > 0) {
        val header = Util.readPageHeader(in)
        val stored = in.readNBytes(header.getCompressed_page_size)
        if (header.getType == PageType.DATA_PAGE_V2) {
          val v2 = header.getData_page_header_v2
          val levels = v2.getRepetition_levels_byte_length + v2.getDefinition_levels_byte_length
          if (v2.isIs_compressed) pages += Page(stored.drop(levels), header.getUncompressed_page_size - levels)
        } else pages += Page(stored, header.getUncompressed_page_size)
      }
      pages.filter(_.uncompressed > 0)
    }
  }
}
