package paimonspark.spark

import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.types.StructType

import paimonspark.format.SparkTypes
import paimonspark.spark.read.ParquetReaders
import paimonspark.table.{DataFileReader, FileStoreTable}

/**
 * Reads whole data files of an append table with Spark's Parquet reader, columns matched by name,
 * for compaction to write them out again. The rows are the reader's own, reused from one to the
 * next: the writer consumes each at once. Files are read one at a time, each closed before the next
 * is opened, so one factory serves them all (a factory closes its last reader when it makes another).
 */
final class ParquetDataFileReader(parquet: ParquetPartitionReaderFactory) extends DataFileReader {
  override def open(file: Path, size: Long): DataFileReader.Rows = {
    val split = PartitionedFile(InternalRow.empty, SparkPath.fromPath(file), 0L, size, Array.empty[String], 0L, size,
      Map.empty)
    val reader = parquet.createReader(FilePartition(0, Array(split)))
    new DataFileReader.Rows {
      private var ready: Option[Boolean] = None
      override def hasNext: Boolean = ready.getOrElse { val more = reader.next(); ready = Some(more); more }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException(s"no more rows in $file")
        ready = None
        reader.get()
      }
      override def close(): Unit = reader.close()
    }
  }
}

object ParquetDataFileReader {
  /** A reader of every column of the table's current schema. Built on the driver, where the session's conf is. */
  def of(table: FileStoreTable): ParquetDataFileReader = {
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(table.schema.fields, withFieldIds = false))
    new ParquetDataFileReader(ParquetReaders.factory(table.io.hadoopConf.value, columns, columns, new StructType(), Nil))
  }
}
