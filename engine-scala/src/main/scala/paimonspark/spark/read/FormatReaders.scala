package paimonspark.spark.read

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapred.JobConf
import org.apache.orc.{OrcConf, OrcFile}
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.memory.MemoryMode
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, Expression}
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOptions, ParquetReadSupport, ParquetWriteSupport}
import org.apache.spark.sql.execution.datasources.orc.OrcOptions
import org.apache.spark.sql.execution.datasources.v2.orc.OrcPartitionReaderFactory
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

import paimonspark.format.{DataFileFormat, FileTypeContradiction}
import paimonspark.format.orc.OrcFileTypes
import paimonspark.fs.{FileIO, HadoopConf}

/**
 * Spark's own (vectorized) Parquet and ORC readers, and an Avro reader of our own, set up for Paimon
 * data files: columns matched by name, then cast to the read schema.
 */
object FormatReaders {
  /**
   * The reader of files holding `requested` (physical types), reading them as `requested` and
   * `partitionSchema`, then `casts` (by ordinal, over values of the requested types).
   */
  def layout(
      io: FileIO,
      requested: StructType,
      parquetRequested: StructType,
      partitionSchema: StructType,
      filters: Seq[Filter],
      casts: Map[Int, Expression],
      orcLegacyLtz: Boolean): LayoutReader = {
    val spark = SparkSession.active
    val conf = spark.sessionState.conf.clone()
    // Paimon's writers write dates and timestamps in the proleptic Gregorian calendar, and say nothing
    // of it in their files: no value is rebased, however old, and none is refused for being old.
    conf.setConf(SQLConf.PARQUET_REBASE_MODE_IN_READ, LegacyBehaviorPolicy.CORRECTED)
    conf.setConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_READ, LegacyBehaviorPolicy.CORRECTED)
    // The settings Spark's Parquet read support and schema converter look up in the Hadoop conf.
    val c = new Configuration(io.hadoopConf.value)
    c.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    c.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, requested.json)
    ParquetWriteSupport.setSchema(requested, c)
    c.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, conf.sessionLocalTimeZone)
    c.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED.key, conf.nestedSchemaPruningEnabled)
    Seq(SQLConf.CASE_SENSITIVE, SQLConf.PARQUET_BINARY_AS_STRING, SQLConf.PARQUET_INT96_AS_TIMESTAMP,
      SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED, SQLConf.LEGACY_PARQUET_NANOS_AS_LONG,
      SQLConf.PARQUET_FIELD_ID_READ_ENABLED, SQLConf.PARQUET_IGNORE_VARIANT_ANNOTATION,
      SQLConf.PARQUET_READER_RESPECT_UNKNOWN_TYPE_ANNOTATION, SQLConf.TIMESTAMP_NANOS_TYPES_ENABLED)
      .foreach(entry => c.set(entry.key, conf.getConfString(entry.key, entry.defaultValueString)))
    val readerConf = new ReaderConf(spark.sparkContext.broadcast(new HadoopConf(c)))
    val noOptions = CaseInsensitiveMap(Map.empty[String, String])
    // Parquet: INT96 timestamps requested as Spark's reader can read them, then cast back (ParquetTimestamps).
    val (parquetFilters, parquetCasts) = turnedBack(requested, parquetRequested,
      requested.indices.filter(i => parquetRequested(i).dataType != requested(i).dataType), filters, casts)((i, child) =>
      Cast(child, requested(i).dataType, Some("UTC")))
    val parquet = ParquetPartitionReaderFactory(conf, readerConf, parquetRequested, parquetRequested, partitionSchema,
      parquetFilters.toArray, None, new ParquetOptions(noOptions, conf))

    // ORC: timestamps requested as Spark's reader can read them, then turned back (OrcTimestamps).
    val orcRequested = StructType(requested.fields.map(f => f.copy(dataType = OrcTimestamps.requested(f.dataType))))
    val (orcFilters, orcCasts) = turnedBack(requested, orcRequested,
      requested.indices.filter(i => OrcTimestamps.needsTurn(requested(i).dataType, orcLegacyLtz)), filters, casts)(
      (i, child) => OrcWallClock(child, requested(i).dataType, orcLegacyLtz))
    val orc = OrcPartitionReaderFactory(conf, readerConf, orcRequested, orcRequested, partitionSchema,
      orcFilters.toArray, None, new OrcOptions(noOptions, conf), MemoryMode.ON_HEAP)

    val avro = new AvroPartitionReaderFactory(requested, partitionSchema, readerConf)

    def rowType(data: StructType) = StructType(data.fields ++ partitionSchema.fields)
    new LayoutReader(Map(
      DataFileFormat.Parquet -> new FormatReader("Parquet", parquet, new ColumnCasts(rowType(parquetRequested), parquetCasts)),
      DataFileFormat.Orc -> new FormatReader("ORC", orc, new ColumnCasts(rowType(orcRequested), orcCasts),
        (file, hadoop) => checkOrcTypes(file, hadoop, orcRequested)),
      DataFileFormat.Avro -> new FormatReader("Avro", avro, new ColumnCasts(rowType(requested), casts))), readerConf, io)
  }

  /** ORC's reader converts a column of another type than asked for: a file that does so is refused first. */
  private def checkOrcTypes(file: PartitionedFile, hadoop: Configuration, requested: StructType): Unit = {
    val path = file.toPath
    val reader = OrcFile.createReader(path, OrcFile.readerOptions(hadoop).filesystem(path.getFileSystem(hadoop)))
    try OrcFileTypes.contradiction(reader.getSchema, requested).foreach(why => throw new FileTypeContradiction(why))
    finally reader.close()
  }

  /**
   * The filters and casts of a read whose format's reader is asked for `asked` where the schema is
   * `requested`: each `turned` column is turned back by `turn` (over its value as read), before any
   * cast of its own. Filters on those columns would compare other values, so they stay with Spark.
   */
  private def turnedBack(requested: StructType, asked: StructType, turned: Seq[Int], filters: Seq[Filter],
      casts: Map[Int, Expression])(turn: (Int, Expression) => Expression): (Seq[Filter], Map[Int, Expression]) = {
    val names = turned.map(requested(_).name)
    val kept = filters.filterNot(_.references.exists(r => names.exists(n => r == n || r.startsWith(s"$n."))))
    (kept, casts ++ turned.map { i =>
      val back = turn(i, BoundReference(i, asked(i).dataType, nullable = true))
      i -> casts.get(i).fold(back)(_.transformUp { case BoundReference(`i`, _, _) => back })
    })
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
final class ReaderConf(shared: Broadcast[HadoopConf])
    extends Broadcast[SerializableConfiguration](shared.id)(ClassTag(classOf[SerializableConfiguration])) {
  @transient private var own: SerializableConfiguration = _

  override protected def getValue(): SerializableConfiguration = {
    if (own == null) own = new SerializableConfiguration(new JobConf(shared.value.value))
    own
  }

  /** Clears what reading a file left in this configuration. */
  def reset(): Unit = if (own != null) {
    Seq(ParquetInputFormat.FILTER_PREDICATE, ParquetInputFormat.FILTER_PREDICATE + ".human.readable",
      OrcConf.KRYO_SARG.getAttribute, OrcConf.SARG_COLUMNS.getAttribute).foreach(own.value.unset)
  }

  override protected def doUnpersist(blocking: Boolean): Unit = shared.unpersist(blocking)
  override protected def doDestroy(blocking: Boolean): Unit = shared.destroy()
}
