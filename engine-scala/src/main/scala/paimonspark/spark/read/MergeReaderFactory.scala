package paimonspark.spark.read

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, JoinedRow, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import paimonspark.format.DataFileReader
import paimonspark.lsm.{MergeEngineSpec, SortedRunMerge}

/**
 * Reads one [[MergeSplit]], section by section: every file is a key-sorted run, the runs are
 * merged by key and version, and each key's newest surviving version is projected to the
 * requested columns followed by the partition values. Merging only the columns a query reads is
 * sound because every engine merges each value column on its own.
 */
final class MergeReaderFactory(
    files: ParquetFileReader,
    mergeSchema: StructType,
    keyOrdinals: Seq[Int],
    outputOrdinals: Seq[Int],
    partitionSchema: StructType,
    engine: MergeEngineSpec) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[MergeSplit]
    val ordering = GenerateOrdering.generate(keyOrdinals.map(i =>
      SortOrder(BoundReference(i, mergeSchema(i).dataType, nullable = false), Ascending)))
    val mergeEngine = engine.create(mergeSchema, keyOrdinals)
    val versions = engine.versionOrdering(mergeSchema)
    // Sections share no key: each is merged on its own, and its files are closed before the next opens.
    var open: Seq[DataFileReader.Rows] = Nil
    def closeOpen(): Unit = { open.foreach(_.close()); open = Nil }
    val merged = split.sections.iterator.flatMap { section =>
      closeOpen()
      open = section.toSeq.map { case (path, size) => files.open(new Path(path), size) }
      new SortedRunMerge(open, ordering, mergeEngine, versions)
    }
    // A view, not a copy: Spark projects every row of a row-based scan into its own unsafe row.
    val width = mergeSchema.length
    val output = ProjectingInternalRow(StructType(outputOrdinals.map(mergeSchema(_)) ++ partitionSchema.fields),
      outputOrdinals ++ partitionSchema.indices.map(width + _))
    // Without partition columns there is nothing to join: one indirection less on every column read.
    val withPartition: InternalRow => InternalRow =
      if (partitionSchema.isEmpty) identity else { val joined = new JoinedRow(); joined(_, split.partitionValues) }
    new PartitionReader[InternalRow] {
      override def next(): Boolean = merged.hasNext && { output.project(withPartition(merged.next())); true }
      override def get(): InternalRow = output
      override def close(): Unit = closeOpen()
    }
  }
}
