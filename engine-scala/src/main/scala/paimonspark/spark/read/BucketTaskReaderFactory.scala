package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

/** Reads a [[BucketTask]] as the task it wraps, and any other partition as it is. */
final class BucketTaskReaderFactory(tasks: PartitionReaderFactory) extends PartitionReaderFactory {
  private def unwrapped(partition: InputPartition): InputPartition = partition match {
    case b: BucketTask => b.task
    case other => other
  }

  override def supportColumnarReads(partition: InputPartition): Boolean =
    tasks.supportColumnarReads(unwrapped(partition))
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    tasks.createReader(unwrapped(partition))
  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    tasks.createColumnarReader(unwrapped(partition))
}
