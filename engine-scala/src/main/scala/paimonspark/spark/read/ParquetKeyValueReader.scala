package paimonspark.spark.read

import org.apache.commons.lang3.SerializationUtils
import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.types.StructType

import paimonspark.format.{KeyValueFields, SparkTypes}
import paimonspark.lsm.{KeyValue, KeyValueFileReader}
import paimonspark.table.{FileStoreTable, KeyLayout}

/**
 * Reads primary-key data files with Spark's Parquet reader into copied rows of `schema` (columns
 * matched by name): merges keep rows of several files alive at once, and the reader reuses its
 * rows and their buffers. Each file gets its own clone of the factory: a factory closes the reader
 * it made last whenever it makes another (its vectorized reader then returns zeroed rows), which a
 * merge reading files in step must not have. The clone is a serialized copy because the factory
 * cannot be constructed again on executors (its SQLConf is not readable there).
 */
final class ParquetKeyValueReader(parquet: ParquetPartitionReaderFactory, schema: StructType) extends KeyValueFileReader {
  override def open(file: Path, size: Long): KeyValueFileReader.Rows = {
    val split = PartitionedFile(InternalRow.empty, SparkPath.fromPath(file), 0L, size, Array.empty[String], 0L, size,
      Map.empty)
    val reader = SerializationUtils.clone(parquet).createReader(FilePartition(0, Array(split)))
    val toUnsafe = UnsafeProjection.create(schema)
    new KeyValueFileReader.Rows {
      private var ready: Option[Boolean] = None
      override def hasNext: Boolean = ready.getOrElse { val more = reader.next(); ready = Some(more); more }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException(s"no more rows in $file")
        ready = None
        toUnsafe(reader.get()).copy()
      }
      override def close(): Unit = reader.close()
    }
  }
}

object ParquetKeyValueReader {
  /** The file schema of a primary-key table's data files, as Spark reads them. */
  def fileSchema(table: FileStoreTable): StructType = {
    val schema = table.schema
    val keys = KeyLayout.of(table.location.toString, schema).trimmedKeys.map(schema.field)
    SparkTypes.physical(SparkTypes.toSparkStruct(KeyValueFields.fileFields(keys, schema.fields), withFieldIds = false))
  }

  /** A reader of whole rows (sequence, kind, table columns), as compaction merges them. Built on the driver. */
  def forCompaction(table: FileStoreTable): ParquetKeyValueReader = {
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(table.schema.fields, withFieldIds = false))
    val rowSchema = StructType(KeyValue.SystemFields ++ columns.fields)
    val parquet = ParquetReaders.factory(table.io.hadoopConf.value, fileSchema(table), rowSchema, new StructType(), Nil)
    new ParquetKeyValueReader(parquet, rowSchema)
  }
}
