package paimonspark.format.parquet

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.hadoop.{ParquetOutputFormat, ParquetWriter}
import org.apache.parquet.hadoop.metadata.CompressionCodecName


/**
 * The Parquet writer settings a table's `parquet.*` options give, read as Paimon's
 * `RowDataParquetBuilder` reads them: row group, page and dictionary page sizes, the page row
 * limit, padding, writer version, dictionaries and bloom filters (each also per column, as
 * `parquet.enable.dictionary#col`), and `parquet.compression` over `file.compression`. Columns in
 * `plainColumns` are written without a dictionary unless an option names them.
 */
final case class ParquetWriteProperties(properties: ParquetProperties, rowGroupSize: Long, maxPaddingSize: Int,
    codec: CompressionCodecName)

object ParquetWriteProperties {
  def of(conf: Configuration, compression: String, plainColumns: Seq[String]): ParquetWriteProperties = {
    val builder = ParquetProperties.builder()
      .withPageSize(ParquetOutputFormat.getPageSize(conf))
      .withPageRowCountLimit(conf.getInt(ParquetOutputFormat.PAGE_ROW_COUNT_LIMIT, ParquetProperties.DEFAULT_PAGE_ROW_COUNT_LIMIT))
      .withDictionaryPageSize(ParquetOutputFormat.getDictionaryPageSize(conf))
      .withWriterVersion(ParquetOutputFormat.getWriterVersion(conf))
      .withDictionaryEncoding(ParquetOutputFormat.getEnableDictionary(conf))
      .withBloomFilterEnabled(ParquetOutputFormat.getBloomFilterEnabled(conf))
    plainColumns.foreach(builder.withDictionaryEncoding(_, false))
    // Per-column settings: `<option>#<column>`, applied after the table-wide ones.
    conf.iterator().asScala.map(_.getKey).filter(_.contains('#')).toSeq.sorted.foreach { key =>
      val Array(option, column) = key.split("#", 2)
      option match {
        case ParquetOutputFormat.ENABLE_DICTIONARY => builder.withDictionaryEncoding(column, conf.getBoolean(key, false))
        case ParquetOutputFormat.BLOOM_FILTER_ENABLED => builder.withBloomFilterEnabled(column, conf.getBoolean(key, false))
        case ParquetOutputFormat.BLOOM_FILTER_EXPECTED_NDV => builder.withBloomFilterNDV(column, conf.getLong(key, -1L))
        case ParquetOutputFormat.BLOOM_FILTER_FPP =>
          builder.withBloomFilterFPP(column, conf.getDouble(key, ParquetProperties.DEFAULT_BLOOM_FILTER_FPP))
        case _ => ()
      }
    }
    ParquetWriteProperties(builder.build(),
      conf.getLong(ParquetOutputFormat.BLOCK_SIZE, ParquetWriter.DEFAULT_BLOCK_SIZE.toLong),
      conf.getInt(ParquetOutputFormat.MAX_PADDING_BYTES, ParquetWriter.MAX_PADDING_SIZE_DEFAULT),
      ParquetDataFile.codec(conf.get(ParquetOutputFormat.COMPRESSION, compression)))
  }
}
