package paimonspark.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector, OnHeapColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import paimonspark.lsm.{GatherVector, SectionMerge, Selection, SortedRunMerge}

/**
 * A merge split read as columnar batches for engines whose result is one of the versions merged:
 * each batch gathers the results from the batches of the runs they came from, fixed-width columns
 * copied, the others read in place. The runs' readers refill their batches when they move on, so a
 * batch is handed to Spark before any run holding one of its rows moves to its next batch, and
 * before a section's files are closed (a batch never spans two sections, so its partition columns
 * are constant); until Spark asks for the next batch, the merge does not move.
 */
private[read] final class MergedBatchReader(
    capacity: Int,
    outputOrdinals: Seq[Int],
    mergeSchema: StructType,
    partitionSchema: StructType,
    sectionsOf: (Int => Boolean) => MergeReaderFactory#MergedSections,
    keyColumnMerge: Option[Array[BatchRows] => SectionMerge]) extends PartitionReader[ColumnarBatch] {

  private val selection = new Selection(capacity)
  private var runs: Array[BatchRows] = Array.empty
  private val sections = sectionsOf(run => selection.size == 0 || !runs(run).atBatchEnd)
  private var merge: SectionMerge = _
  private var partitionValues: InternalRow = _
  private var partitionColumns: Seq[ColumnVector] = Nil
  private var gathered: Array[GatherVector] = Array.empty
  // Where Spark reads a gathered column as a copy (GatherVector.copies), the copy; else null.
  private val copies: Array[OnHeapColumnVector] = outputOrdinals.map(o => mergeSchema(o).dataType).map(t =>
    if (GatherVector.copies(t)) new OnHeapColumnVector(capacity, t) else null).toArray
  private var batch: ColumnarBatch = _

  override def next(): Boolean = {
    selection.size = 0
    var done = false
    // A batch never spans two sections: its partition columns are constant.
    while (!done) {
      if (merge != null && merge.fill(selection)) done = true
      else if (selection.size > 0 || !openNextSection()) done = true
    }
    if (selection.size == 0) false
    else {
      gathered.indices.foreach(c => gathered(c).gatherFrom(runs, outputOrdinals(c)))
      var c = 0
      while (c < copies.length) { if (copies(c) != null) gathered(c).copyTo(copies(c)); c += 1 }
      batch.setNumRows(selection.size)
      true
    }
  }

  private def openNextSection(): Boolean = sections.nextSection() && {
    runs = sections.runs.map {
      case rows: BatchRows => rows
      case other => throw new IllegalStateException(s"a columnar merge read got ${other.getClass.getName}, not batches")
    }
    merge = keyColumnMerge.fold[SectionMerge](new PickedVersions(sections.merge, runs))(_(runs))
    // A section may be of another partition than the last; Spark is done with the last batch by now.
    if (sections.partitionValues ne partitionValues) {
      partitionColumns.foreach(_.close())
      partitionValues = sections.partitionValues
      partitionColumns = partitionSchema.indices.map { i =>
        val column = new ConstantColumnVector(capacity, partitionSchema(i).dataType)
        ColumnVectorUtils.populate(column, partitionValues, i)
        column
      }
    }
    gathered = outputOrdinals.map(o => new GatherVector(mergeSchema(o).dataType, runs.length, selection)).toArray
    val columns = gathered.indices.map(c => if (copies(c) != null) copies(c) else gathered(c))
    batch = new ColumnarBatch((columns ++ partitionColumns).toArray)
    true
  }

  override def get(): ColumnarBatch = batch

  override def close(): Unit = {
    sections.close()
    partitionColumns.foreach(_.close())
    copies.foreach(c => if (c != null) c.close())
  }
}

/** A section's merge by [[SortedRunMerge]], for engines whose result is one of the versions it merged. */
private final class PickedVersions(merge: SortedRunMerge, runs: Array[BatchRows]) extends SectionMerge {
  override def fill(selection: Selection): Boolean = {
    while (selection.size < selection.capacity && merge.hasNext) {
      merge.next()
      val run = merge.resultRun
      if (run < 0) throw new IllegalStateException("a columnar merge read needs an engine that picks one of the versions")
      selection.add(run, runs(run).rowId)
    }
    selection.size == selection.capacity || merge.blocked
  }
}
