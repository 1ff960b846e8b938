package paimonspark.spark.read

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, GenericInternalRow, JoinedRow, SortOrder,
  UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.types.StructType

import paimonspark.format.{DataFileReader, SparkTypes}
import paimonspark.format.metadata.DataFileMeta
import paimonspark.lsm.{IntegralKey, KeyValue, MergeEngineSpec, SortedRunMerge}
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.changes.BucketDiff

/**
 * One bucket's files on each side of a diff, with the snapshot its changes are reported under (a
 * streamed overwrite's).
 */
final case class BucketDiffFiles(before: Array[MergeFile], after: Array[MergeFile], snapshotId: Long = 0L,
    commitMicros: Long = 0L) {
  def bytes: Long = (before ++ after).map(_.size).sum
  def files: Int = before.length + after.length
}

object BucketDiffFiles {
  def of(table: FileStoreTable, partitionBytes: Array[Byte], bucket: Int, before: Seq[DataFileMeta],
      after: Seq[DataFileMeta], snapshotId: Long = 0L, commitMicros: Long = 0L): BucketDiffFiles = {
    def paths(files: Seq[DataFileMeta]) =
      files.map(f => MergeFile(table.dataFilePath(partitionBytes, bucket, f).toString, f.fileSize, f.schemaId, None,
        f.level)).toArray
    BucketDiffFiles(paths(before), paths(after), snapshotId, commitMicros)
  }
}

/** The buckets of a diff one task reads, one after another. */
final case class DiffSplit(buckets: Array[BucketDiffFiles]) extends InputPartition

object DiffSplit {
  /** `diffs` packed into tasks by size ([[ReadPacking]]). */
  def packed(table: FileStoreTable, diffs: Seq[BucketDiffFiles]): Seq[DiffSplit] = {
    val packing = ReadPacking.of(table)
    packing.packAll(diffs, (d: BucketDiffFiles) => packing.weight(d.bytes, d.files)).map(task => DiffSplit(task.toArray))
  }
}

/**
 * A batch read of the rows that differ between two states of a table, planned by
 * [[paimonspark.table.changes.SnapshotDiff]]. With `$audit_log`'s column, each row is led by its kind:
 * +I for a key (or, in an append table, a row) only the later state has, -U and +U for a key whose
 * row changed, -D for one only the earlier state has. Without it, the later state's rows of new
 * and changed keys, as Paimon's diff reads give them.
 */
final class DiffScan(table: FileStoreTable, planDiff: () => Seq[BucketDiff], added: ChangeColumns, required: StructType)
    extends Scan with Batch {

  override def readSchema(): StructType = required
  override def toBatch: Batch = this
  override def description(): String = s"PaimonDiffScan ${table.location} [${required.fieldNames.mkString(", ")}]"

  override def planInputPartitions(): Array[InputPartition] =
    DiffSplit.packed(table, planDiff().map(d => BucketDiffFiles.of(table, d.partitionBytes, d.bucket, d.before, d.after)))
      .toArray

  override def createReaderFactory(): PartitionReaderFactory = DiffReaderFactory.of(table, required, added)
}

object DiffReaderFactory {
  /** The reader of a table's diff splits, as rows of `output`: the table's columns and the `added` ones. */
  def of(table: FileStoreTable, output: StructType, added: ChangeColumns): DiffReaderFactory = {
    // Files carry every column, partition columns too: each side is read whole and compared whole.
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(table.schema.fields, withFieldIds = false))
    val system = if (table.isPrimaryKeyTable) KeyValue.SystemFields.size else 0
    val rowSchema = StructType(KeyValue.SystemFields.take(system) ++ columns.fields)
    val keyOrdinals = if (!table.isPrimaryKeyTable) Nil
      else KeyLayout.of(table.location.toString, table.schema).trimmedKeys.map(k => system + columns.fieldIndex(k))
    val engine = if (table.isPrimaryKeyTable) Some(MergeEngineSpec.of(table.location.toString, table.schema)) else None
    new DiffReaderFactory(SparkFileReader.forCompaction(table), rowSchema, system, keyOrdinals, engine, output, added)
  }
}

/** Reads [[DiffSplit]]s: merged sides joined by key, or, for append tables, rows counted off. */
final class DiffReaderFactory(files: SparkFileReader, rowSchema: StructType, system: Int, keyOrdinals: Seq[Int],
    engine: Option[MergeEngineSpec], output: StructType, added: ChangeColumns) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val remaining = partition.asInstanceOf[DiffSplit].buckets.iterator
    val extras = (added.leading ++ added.trailing).map(_.name)
    // Without added columns, retractions are left out, as in every read of changes.
    val retractions = extras.nonEmpty
    val width = rowSchema.length
    val ordinals = output.fieldNames.toSeq.map(n => if (extras.contains(n)) width + extras.indexOf(n) else rowSchema.fieldIndex(n))
    val projected = ProjectingInternalRow(output, ordinals)
    val (joined, extraRow) = (new JoinedRow(), new GenericInternalRow(extras.size))
    new PartitionReader[InternalRow] {
      private var open: Seq[DataFileReader.Rows] = Nil
      private var changes: Changes = _
      private var commit: ChangeFile = _

      /** Closes the current bucket's files and opens the next bucket's; false when there is none. */
      private def nextBucket(): Boolean = remaining.hasNext && {
        close()
        val bucket = remaining.next()
        val openSide = (side: Array[MergeFile]) => side.map(f => files.open(new Path(f.path), f.size, f.schemaId)).toSeq
        val (before, after) = (openSide(bucket.before), openSide(bucket.after))
        open = before ++ after
        changes = engine match {
          case Some(spec) => new KeyDiff(merged(spec, before, bucket.before), merged(spec, after, bucket.after), retractions)
          case None => new RowDiff(before, after, retractions, UnsafeProjection.create(rowSchema))
        }
        commit = ChangeFile("", 0L, -1L, InternalRow.empty, bucket.snapshotId, bucket.commitMicros)
        true
      }

      override def next(): Boolean = {
        while (changes == null || !changes.next()) if (!nextBucket()) return false
        var i = 0
        while (i < extras.size) { extraRow.update(i, ChangeColumns.value(extras(i), changes.kind, commit)); i += 1 }
        projected.project(joined(changes.row, extraRow))
        true
      }
      override def get(): InternalRow = projected
      override def close(): Unit = { open.foreach(_.close()); open = Nil }
    }
  }

  private lazy val keyOrdering = GenerateOrdering.generate(keyOrdinals.map(i =>
    SortOrder(BoundReference(i, rowSchema(i).dataType, nullable = false), Ascending)))

  private def merged(spec: MergeEngineSpec, runs: Seq[DataFileReader.Rows], files: Array[MergeFile]): SortedRunMerge =
    new SortedRunMerge(runs, keyOrdering, spec.create(rowSchema, keyOrdinals), spec.versionOrdering(rowSchema),
      dropRetractions = false, integralKey = IntegralKey.of(rowSchema, keyOrdinals),
      runLevels = if (spec.lookupMerge) Some(files.map(_.level).toSeq) else None)

  /**
   * Two merged states of a primary-key bucket walked together by key. A side's row stays valid
   * until that side is advanced, which happens only on the call after its row was handed out.
   */
  private final class KeyDiff(before: SortedRunMerge, after: SortedRunMerge, retractions: Boolean) extends Changes {
    // Each side's row is compared as the bytes of its columns; one projection per side, as each reuses its row.
    private def valueBytes() = UnsafeProjection.create((system until rowSchema.length).map(i =>
      BoundReference(i, rowSchema(i).dataType, nullable = true)))
    private val beforeValues = valueBytes()
    private val afterValues = valueBytes()
    private var (b, a) = (null: InternalRow, null: InternalRow)
    private var (advanceBefore, advanceAfter, pendingAfter) = (true, true, false)

    /** The next live row of a merged side; a merged retraction means the key is absent. */
    private def live(side: SortedRunMerge): InternalRow = {
      while (side.hasNext) { val r = side.next(); if (!KeyValue.isRetract(r)) return r }
      null
    }

    override def next(): Boolean = {
      if (advanceBefore) { b = live(before); advanceBefore = false }
      if (pendingAfter) { pendingAfter = false; advanceAfter = true; return emit(KeyValue.UpdateAfter, a) }
      while (true) {
        if (advanceAfter) { a = live(after); advanceAfter = false }
        if (b == null && a == null) return false
        val c = if (b == null) 1 else if (a == null) -1 else keyOrdering.compare(b, a)
        if (c < 0) {
          if (retractions) { advanceBefore = true; return emit(KeyValue.Delete, b) }
          b = live(before)
        } else if (c > 0) { advanceAfter = true; return emit(KeyValue.Insert, a) }
        else if (beforeValues(b) == afterValues(a)) { b = live(before); advanceAfter = true }
        else if (retractions) { advanceBefore = true; pendingAfter = true; return emit(KeyValue.UpdateBefore, b) }
        else { b = live(before); advanceAfter = true; return emit(KeyValue.UpdateAfter, a) }
      }
      false
    }
  }

  /**
   * The rows of an append bucket's files only one side has, as multisets: a row on both sides
   * (a compaction rewrote it) cancels out. The earlier side's rows are held in memory, counted;
   * a bucket without such files (only appends) streams.
   */
  private final class RowDiff(before: Seq[DataFileReader.Rows], after: Seq[DataFileReader.Rows], retractions: Boolean,
      toUnsafe: UnsafeProjection) extends Changes {
    private val counts = scala.collection.mutable.HashMap.empty[InternalRow, Int]
    before.foreach(_.foreach(r => { val u = toUnsafe(r).copy(); counts.update(u, counts.getOrElse(u, 0) + 1) }))
    private val added = after.iterator.flatten
    private lazy val removed = counts.iterator.flatMap { case (r, n) => Iterator.fill(n)(r) }

    override def next(): Boolean = {
      while (added.hasNext) {
        val r = added.next()
        if (counts.isEmpty) return emit(KeyValue.Insert, r)
        val u = toUnsafe(r)
        counts.get(u) match {
          case Some(n) => if (n == 1) counts.remove(u) else counts.update(u, n - 1)
          case None => return emit(KeyValue.Insert, r)
        }
      }
      retractions && removed.hasNext && emit(KeyValue.Delete, removed.next())
    }
  }
}

/** The changes of one bucket, one at a time: the current row and its kind. */
private abstract class Changes {
  var row: InternalRow = _
  var kind: Byte = KeyValue.Insert
  def next(): Boolean

  protected def emit(k: Byte, r: InternalRow): Boolean = { kind = k; row = r; true }
}
