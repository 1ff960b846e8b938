package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException
import paimonspark.lsm.{KeyValue, MergeEngineSpec}
import paimonspark.table.{FileStoreTable, Predicate}

/** The files of one (partition, bucket) of a primary-key table, merged on read. */
final case class MergeSplit(partitionValues: InternalRow, files: Array[(String, Long)]) extends InputPartition

/**
 * A batch scan of a primary-key table: every (partition, bucket) is one split whose files are
 * merged by key. Filters on value columns are never pushed into the files: skipping an old
 * file's row group could resurrect an older version of a key; Spark applies them after the merge.
 */
final class PrimaryKeyScan(table: FileStoreTable, required: StructType, predicate: Option[Predicate])
    extends TableScan(table, required, predicate) {

  private val keyNames = schema.primaryKeys.filterNot(partitionNames.contains)

  private val engine = {
    if (table.options.bucket == -2) {
      throw new UnsupportedFeatureException(s"table ${table.location} uses bucket=-2 (postpone); reading it is not supported yet")
    }
    MergeEngineSpec.of(table.location.toString, schema)
  }

  /**
   * What the merge reads of each file: sequence, kind, the key, then the other required columns
   * and the sequence fields that order versions.
   */
  private val mergeSchema: StructType = {
    val keys = keyNames.map(k => tableStruct(k))
    val rest = (readDataSchema.fieldNames.toSeq ++ engine.sequenceFields).distinct.filterNot(keyNames.contains)
    StructType(KeyValue.SystemFields ++ keys ++ rest.map(tableStruct(_)))
  }

  override def description(): String =
    s"PaimonScan (merge on read) ${table.location} [${readSchema().fieldNames.mkString(", ")}]"

  override def planInputPartitions(): Array[InputPartition] = splits.map { split =>
    MergeSplit(partitionValues(split), split.files.map(f => dataFilePath(split, f).toString -> f.fileSize).toArray)
      : InputPartition
  }.toArray

  override def createReaderFactory(): PartitionReaderFactory = {
    val parquet = ParquetReaders.factory(table.io.hadoopConf.value, ParquetKeyValueReader.fileSchema(table), mergeSchema,
      new StructType(), Nil, vectorized = false)
    val outputOrdinals = readDataSchema.map(f => mergeSchema.fieldIndex(f.name))
    val keyOrdinals = keyNames.indices.map(_ + KeyValue.SystemFields.size)
    new MergeReaderFactory(new ParquetKeyValueReader(parquet, mergeSchema), mergeSchema, keyOrdinals, outputOrdinals,
      readPartitionSchema, engine)
  }
}
