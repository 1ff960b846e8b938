package paimonspark.spark.read

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapred.JobConf
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOptions, ParquetReadSupport, ParquetWriteSupport}
import org.apache.spark.memory.MemoryMode
import org.apache.spark.sql.execution.datasources.orc.OrcOptions
import org.apache.spark.sql.execution.datasources.v2.orc.OrcPartitionReaderFactory
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

/** Spark's own (vectorized) Parquet and ORC readers, set up for Paimon data files: columns matched by name. */
object ParquetReaders {
  /** The reader of files holding `dataSchema`, reading them as `readDataSchema` and `partitionSchema`, then `casts`. */
  def layout(
      hadoopConf: Configuration,
      dataSchema: StructType,
      readDataSchema: StructType,
      partitionSchema: StructType,
      filters: Seq[Filter],
      casts: ColumnCasts): LayoutReader = {
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
    val readerConf = new ReaderConf(spark.sparkContext.broadcast(new SerializableConfiguration(c)))
    val noOptions = CaseInsensitiveMap(Map.empty[String, String])
    new LayoutReader(
      ParquetPartitionReaderFactory(conf, readerConf, dataSchema, readDataSchema, partitionSchema, filters.toArray,
        None, new ParquetOptions(noOptions, conf)),
      // ORC finds columns by name too; Spark's ORC reader takes its settings from the same configuration.
      OrcPartitionReaderFactory(conf, readerConf, dataSchema, readDataSchema, partitionSchema, filters.toArray, None,
        new OrcOptions(noOptions, conf), MemoryMode.ON_HEAP),
      readerConf, casts)
  }
}

/**
 * The Hadoop configuration of a reader factory, as a JobConf of its own, copied from the broadcast
 * once per deserialized factory. Spark's Parquet reader copies the configuration it is given for
 * every file it opens (a task context over a JobConf copy), under a lock on the shared one: for a
 * task reading hundreds of small files, that copying took about a third of its time (profiled).
 * Given a JobConf, it copies nothing. A factory is deserialized per task,
 * so its copy is used by one thread; the filter predicate Spark writes into it for a file is
 * cleared before the next ([[LayoutReader]]), as a fresh copy would be.
 */
final class ReaderConf(shared: Broadcast[SerializableConfiguration])
    extends Broadcast[SerializableConfiguration](shared.id)(ClassTag(classOf[SerializableConfiguration])) {
  @transient private var own: SerializableConfiguration = _

  override protected def getValue(): SerializableConfiguration = {
    if (own == null) own = new SerializableConfiguration(new JobConf(shared.value.value))
    own
  }

  /** Clears what reading a file left in this configuration. */
  def reset(): Unit = if (own != null) {
    own.value.unset(ParquetInputFormat.FILTER_PREDICATE)
    own.value.unset(ParquetInputFormat.FILTER_PREDICATE + ".human.readable")
  }

  override protected def doUnpersist(blocking: Boolean): Unit = shared.unpersist(blocking)
  override protected def doDestroy(blocking: Boolean): Unit = shared.destroy()
}
