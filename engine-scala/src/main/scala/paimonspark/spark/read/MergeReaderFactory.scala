package paimonspark.spark.read

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, GenericInternalRow, JoinedRow, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.DataFileReader
import paimonspark.lsm.{IntegralKey, KeyColumnMerge, KeyValue, MergeEngineSpec, SectionMerge, SortedRunMerge}

/**
 * Reads one [[MergeSplit]], section by section: every file is a key-sorted run, the runs are
 * merged by key and version, and each key's newest surviving version is projected to the
 * requested columns followed by the values of its section's partition. Merging only the columns a
 * query reads is sound because every engine merges each value column on its own.
 *
 * With `rowKind` (`$audit_log`), retractions are kept and each row is led by its kind. In a table
 * that looks keys up, a key is merged as Paimon's readers merge it there (`MergeEngineSpec.lookupMerge`).
 *
 * With `columnar`, for engines whose result is one of the versions merged (deduplicate, first-row),
 * splits are read as batches that gather the results from the runs' own batches, without a copy; a
 * deduplicated key of one integral column is merged on the runs' columns ([[KeyColumnMerge]]).
 */
final class MergeReaderFactory(
    files: SparkFileReader,
    filesWithoutSequence: SparkFileReader,
    mergeSchema: StructType,
    keyOrdinals: Seq[Int],
    outputOrdinals: Seq[Int],
    partitionSchema: StructType,
    engine: MergeEngineSpec,
    columnar: Boolean,
    batchSize: Int,
    rowKind: Boolean = false) extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = columnar

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[MergeSplit]
    val sections = new MergedSections(split, _ => true, sequenceStandIns = false)
    // A view, not a copy: Spark projects every row of a row-based scan into its own unsafe row.
    val width = mergeSchema.length
    val values = StructType(outputOrdinals.map(mergeSchema(_)) ++ partitionSchema.fields)
    val ordinals = outputOrdinals ++ partitionSchema.indices.map(width + _)
    val output = if (!rowKind) ProjectingInternalRow(values, ordinals)
      else ProjectingInternalRow(StructType(ChangeColumns.AuditLog.leading ++ values.fields), (width + partitionSchema.length) +: ordinals)
    // Without partition columns there is nothing to join: one indirection less on every column read.
    val withPartition: InternalRow => InternalRow =
      if (partitionSchema.isEmpty && !rowKind) identity
      else if (!rowKind) { val joined = new JoinedRow(); joined(_, sections.partitionValues) }
      else {
        val (joined, withKind, kind) = (new JoinedRow(), new JoinedRow(), new GenericInternalRow(1))
        row => {
          kind.update(0, ChangeColumns.rowKindText(KeyValue.kind(row)))
          joined(row, withKind(sections.partitionValues, kind))
        }
      }
    new PartitionReader[InternalRow] {
      override def next(): Boolean = sections.nextResult() && { output.project(withPartition(sections.merge.next())); true }
      override def get(): InternalRow = output
      override def close(): Unit = sections.close()
    }
  }

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val split = partition.asInstanceOf[MergeSplit]
    new MergedBatchReader(batchSize, outputOrdinals, mergeSchema, partitionSchema,
      mayAdvance => new MergedSections(split, mayAdvance, sequenceStandIns = true, sortedRunMerge = keyColumnMerge.isEmpty),
      keyColumnMerge)
  }

  /** The merge on column batches, where it gives what the engine would: a deduplicated integral key ordered by sequence. */
  private val keyColumnMerge: Option[Array[BatchRows] => SectionMerge] =
    KeyColumnMerge.keyOf(mergeSchema, keyOrdinals, engine).map { key =>
      val ignoreDelete = engine.ignoreDelete
      (runs: Array[BatchRows]) => new KeyColumnMerge(runs, key, ignoreDelete)
    }

  /**
   * The merges of a split's sections, one at a time. Sections share no key: each is merged on its
   * own, and its files are closed before the next opens. With `sequenceStandIns` (columnar reads),
   * files that have a stand-in sequence number are read without their `_SEQUENCE_NUMBER` column.
   * Without `sortedRunMerge`, the caller merges the runs itself and `merge` stays null.
   */
  final class MergedSections(split: MergeSplit, mayAdvance: Int => Boolean, sequenceStandIns: Boolean,
      sortedRunMerge: Boolean = true) {
    // Built only for SortedRunMerge: generating the ordering compiles code.
    private lazy val ordering = GenerateOrdering.generate(keyOrdinals.map(i =>
      SortOrder(BoundReference(i, mergeSchema(i).dataType, nullable = false), Ascending)))
    private lazy val mergeEngine = engine.create(mergeSchema, keyOrdinals)
    private lazy val versions = engine.versionOrdering(mergeSchema)
    private val remaining = split.sections.iterator
    private var open: Array[DataFileReader.Rows] = Array.empty

    /** The current section's merge; null before the first. */
    var merge: SortedRunMerge = _

    /** The values of the current section's partition; null before the first. */
    var partitionValues: InternalRow = _

    /** The current section's runs, in the merge's run order. */
    def runs: Array[DataFileReader.Rows] = open

    /** Whether the current section's merge has a result, opening later sections as needed. */
    def nextResult(): Boolean = {
      while ((merge == null || !merge.hasNext) && nextSection()) ()
      merge != null && merge.hasNext
    }

    /** Closes the current section and opens the next one; false when there is none. */
    def nextSection(): Boolean = remaining.hasNext && {
      close()
      val section = remaining.next()
      partitionValues = section.partitionValues
      open = section.files.map {
        case MergeFile(path, size, schemaId, Some(sequence), _) if sequenceStandIns =>
          filesWithoutSequence.openWithSequence(new Path(path), size, schemaId, sequence)
        case MergeFile(path, size, schemaId, _, _) => files.open(new Path(path), size, schemaId)
      }
      if (sortedRunMerge) merge = new SortedRunMerge(open.toSeq, ordering, mergeEngine, versions,
        dropRetractions = !rowKind, mayAdvance = mayAdvance, integralKey = IntegralKey.of(mergeSchema, keyOrdinals),
        runLevels = if (engine.lookupMerge) Some(section.files.map(_.level).toSeq) else None)
      true
    }

    def close(): Unit = {
      open.foreach(_.close())
      open = Array.empty
    }
  }
}
