package paimonspark.format

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.{ParquetFileWriter, ParquetWriter}
import org.apache.parquet.hadoop.api.WriteSupport
import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}
import org.apache.parquet.io.OutputFile
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.StructType

/**
 * Writes one Parquet data file from Spark rows with Spark's own Parquet write support, configured
 * for what Paimon's readers expect: standard (non-legacy) lists, maps and decimals, timestamps as
 * INT64 micros (adjusted to UTC for LTZ columns), and Paimon field ids on every column.
 * `uniqueColumns` hold a distinct value in (nearly) every row, like a key or sequence numbers: a
 * dictionary cannot pay off there, and building one only to drop it costs a hash insert per value.
 */
final class ParquetDataFile(file: OutputFile, schema: StructType, conf: Configuration, compression: String,
    zstdLevel: Int, uniqueColumns: Seq[String] = Nil) {
  private val writer: ParquetWriter[InternalRow] = {
    val c = new Configuration(conf)
    ParquetWriteSupport.setSchema(schema, c)
    c.set("spark.sql.parquet.writeLegacyFormat", "false")
    c.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    c.set("spark.sql.parquet.fieldId.write.enabled", "true")
    c.set("spark.sql.parquet.variant.annotateLogicalType.enabled", "false")
    c.set("parquet.compression.codec.zstd.level", zstdLevel.toString)
    val builder = new ParquetDataFile.Builder(file)
      .withConf(c)
      .withCompressionCodec(ParquetDataFile.codec(compression))
      .withWriteMode(ParquetFileWriter.Mode.CREATE)
    uniqueColumns.foldLeft(builder)(_.withDictionaryEncoding(_, false)).build()
  }
  private var rows = 0L

  def write(row: InternalRow): Unit = {
    writer.write(row)
    rows += 1
  }

  def rowCount: Long = rows

  /** Bytes written plus bytes buffered: what file rolling compares with the target size. */
  def estimatedSize: Long = writer.getDataSize

  /** Closes the file and returns its footer, whose statistics become the file's value stats. */
  def close(): ParquetMetadata = {
    writer.close()
    writer.getFooter
  }

  /** Closes the writer after a failure; the file is left for cleanup by the caller. */
  def abort(): Unit = try writer.close() catch { case _: Exception => () }
}

object ParquetDataFile {
  private final class Builder(file: OutputFile) extends ParquetWriter.Builder[InternalRow, Builder](file) {
    override def self(): Builder = this
    override def getWriteSupport(c: Configuration): WriteSupport[InternalRow] = new ParquetWriteSupport()
  }

  def codec(name: String): CompressionCodecName = name.toLowerCase match {
    case "zstd" => CompressionCodecName.ZSTD
    case "snappy" => CompressionCodecName.SNAPPY
    case "gzip" => CompressionCodecName.GZIP
    case "lz4" => CompressionCodecName.LZ4_RAW
    case "none" | "uncompressed" => CompressionCodecName.UNCOMPRESSED
    case other => throw new IllegalArgumentException(s"unsupported file.compression '$other'")
  }

  val SupportedCodecs: Set[String] = Set("zstd", "snappy", "gzip", "lz4", "none", "uncompressed")
}
