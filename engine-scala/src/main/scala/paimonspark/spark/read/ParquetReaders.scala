package paimonspark.spark.read

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOptions, ParquetReadSupport, ParquetWriteSupport}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

/** Spark's own (vectorized) Parquet reader, set up for Paimon data files: columns matched by name. */
object ParquetReaders {
  def factory(
      hadoopConf: Configuration,
      dataSchema: StructType,
      readDataSchema: StructType,
      partitionSchema: StructType,
      filters: Seq[Filter]): ParquetPartitionReaderFactory = {
    val spark = SparkSession.active
    val conf = spark.sessionState.conf.clone()
    // The settings Spark's Parquet read support and schema converter look up in the Hadoop conf.
    val c = new Configuration(hadoopConf)
    c.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    c.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, readDataSchema.json)
    ParquetWriteSupport.setSchema(readDataSchema, c)
    c.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, conf.sessionLocalTimeZone)
    c.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED.key, conf.nestedSchemaPruningEnabled)
    Seq(SQLConf.CASE_SENSITIVE, SQLConf.PARQUET_BINARY_AS_STRING, SQLConf.PARQUET_INT96_AS_TIMESTAMP,
      SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED, SQLConf.LEGACY_PARQUET_NANOS_AS_LONG,
      SQLConf.PARQUET_FIELD_ID_READ_ENABLED, SQLConf.PARQUET_IGNORE_VARIANT_ANNOTATION,
      SQLConf.PARQUET_READER_RESPECT_UNKNOWN_TYPE_ANNOTATION, SQLConf.TIMESTAMP_NANOS_TYPES_ENABLED)
      .foreach(entry => c.set(entry.key, conf.getConfString(entry.key, entry.defaultValueString)))
    val broadcastConf = spark.sparkContext.broadcast(new SerializableConfiguration(c))
    ParquetPartitionReaderFactory(conf, broadcastConf, dataSchema, readDataSchema, partitionSchema, filters.toArray,
      None, new ParquetOptions(CaseInsensitiveMap(Map.empty[String, String]), conf))
  }
}
