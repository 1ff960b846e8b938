package paimonspark.spark.read

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException
import paimonspark.lsm.{KeyValue, MergeEngineSpec}
import paimonspark.table.{FileStoreTable, Predicate}

/** The files of one (partition, bucket) of a primary-key table, merged on read. */
final case class MergeSplit(partitionValues: InternalRow, files: Array[PartitionedFile]) extends InputPartition

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
    val files = split.files.map { f =>
      PartitionedFile(InternalRow.empty, SparkPath.fromPath(dataFilePath(split, f)), 0L, f.fileSize,
        Array.empty[String], 0L, f.fileSize, Map.empty)
    }
    MergeSplit(partitionValues(split), files.toArray): InputPartition
  }.toArray

  override def createReaderFactory(): PartitionReaderFactory = {
    val fileSchema = StructType(keyNames.map(k => tableStruct(k).copy(name = s"_KEY_$k")) ++ KeyValue.SystemFields ++
      tableStruct.fields)
    val parquet = ParquetReaders.factory(table.io.hadoopConf.value, fileSchema, mergeSchema, new StructType(), Nil,
      vectorized = false)
    val outputOrdinals = readDataSchema.map(f => mergeSchema.fieldIndex(f.name))
    val keyOrdinals = keyNames.indices.map(_ + KeyValue.SystemFields.size)
    new MergeReaderFactory(parquet, mergeSchema, keyOrdinals, outputOrdinals, readPartitionSchema, engine)
  }
}
