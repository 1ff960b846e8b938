package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, InterpretedOrdering, JoinedRow, SortOrder, UnsafeProjection}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.datasources.FilePartition
import org.apache.spark.sql.types.StructType

import paimonspark.lsm.{MergeEngineSpec, SortedRunMerge}

/**
 * Reads one [[MergeSplit]]: every file is a key-sorted run read by Spark's Parquet reader, the runs
 * are merged by key and sequence number, and each key's newest surviving version is projected to
 * the requested columns followed by the partition values. Merging only the columns a query reads
 * is sound because every engine merges each value column on its own.
 */
final class MergeReaderFactory(
    parquet: PartitionReaderFactory,
    mergeSchema: StructType,
    keyOrdinals: Seq[Int],
    outputOrdinals: Seq[Int],
    partitionSchema: StructType,
    engine: MergeEngineSpec) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[MergeSplit]
    val readers = split.files.map(f => parquet.createReader(FilePartition(0, Array(f))))
    val runs = readers.toSeq.map { r =>
      // The Parquet reader reuses its rows and their column buffers: keep a deep copy of each head of run.
      val toUnsafe = UnsafeProjection.create(mergeSchema)
      Iterator.continually(r).takeWhile(_.next()).map(reader => toUnsafe(reader.get()).copy())
    }
    val ordering = new InterpretedOrdering(keyOrdinals.map(i =>
      SortOrder(BoundReference(i, mergeSchema(i).dataType, nullable = false), Ascending)))
    val merged = new SortedRunMerge(runs, ordering, engine.create(mergeSchema, keyOrdinals),
      engine.versionOrdering(mergeSchema))
    val width = mergeSchema.length
    val project = UnsafeProjection.create(
      outputOrdinals.map(i => BoundReference(i, mergeSchema(i).dataType, mergeSchema(i).nullable)) ++
        partitionSchema.indices.map(p => BoundReference(width + p, partitionSchema(p).dataType, nullable = true)))
    val joined = new JoinedRow()
    new PartitionReader[InternalRow] {
      private var current: InternalRow = _
      override def next(): Boolean = merged.hasNext && { current = project(joined(merged.next(), split.partitionValues)); true }
      override def get(): InternalRow = current
      override def close(): Unit = readers.foreach(_.close())
    }
  }
}
