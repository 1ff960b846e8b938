package paimonspark.table.write

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.SparkEnv
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.types._
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators

import paimonspark.InvalidDataException
import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.lsm.{DataFileSettings, IntegralKey, KeyValue, KeyValueFileWriter, MergeEngineSpec, NewestVersions,
  SortedRunMerge}
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.options.ChangelogProducer

/**
 * The executor side of a write to a primary-key table, as Paimon's merge-tree writer does it: rows
 * go into a sort buffer of `write-buffer-size` (Spark's external sorter, which spills to disk under
 * memory pressure); a full buffer is flushed as one level-0 sorted run per (partition, bucket), with
 * the versions of a key in the buffer merged by the table's merge engine. Rows are numbered in
 * arrival order; a bucket's sequence numbers continue from `restored` (highest committed + 1), so
 * every new version is newer than what the bucket holds.
 */
final class PrimaryKeyWriter(table: FileStoreTable, restored: WriteRestore, bucketing: Bucketing) {
  import PrimaryKeyWriter._

  private val schema = table.schema
  private val name = table.location.toString
  private val layout = KeyLayout.of(name, schema)
  private val spec = MergeEngineSpec.of(name, schema)
  private val options = table.options
  private val columns = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false))
  private val width = columns.length
  private def column(name: String): Int = schema.fieldNames.indexOf(name)

  // Buffered rows: (arrival, kind, table columns, bucket).
  private val bufferSchema = StructType(KeyValue.SystemFields ++ columns.fields :+ StructField("_BUCKET", IntegerType))
  private val bucketOrdinal = width + 2
  private def ref(i: Int) = BoundReference(i, bufferSchema(i).dataType, bufferSchema(i).nullable)
  private def buffered(name: String) = ref(column(name) + 2)

  // The input row with zeroed system fields, which are then set in place (all fixed-width).
  private val toBuffer = UnsafeProjection.create(
    Seq(Literal(0L), Literal(0.toByte)) ++ columns.indices.map(i => BoundReference(i, columns(i).dataType, true)) :+
      Literal(0))

  private val keyOrdinals = layout.primaryKeys.map(column)
  private val bucketer = new RowBucketer(table, bucketing)
  private val rowKindOrdinal = options.rowKindField.map(column)

  /** Groups of the sorted buffer: (bucket, partition, trimmed key). */
  private val groupOrder = (ref(bucketOrdinal) +: schema.partitionKeys.map(buffered)) ++ layout.trimmedKeys.map(buffered)
  private val groupOrdering = GenerateOrdering.generate(groupOrder.map(SortOrder(_, Ascending)))
  /**
   * The integral key of a deduplicated, unpartitioned table whose versions are ordered by arrival
   * alone, without an `input` changelog (which takes every version in arrival order): its buffer is
   * sorted newest version first and merged by [[NewestVersions]], without copying its rows.
   */
  private val newestFirst = Option.when(spec.engine == "deduplicate" && spec.sequenceFields.isEmpty &&
    schema.partitionKeys.isEmpty && options.changelogProducer != ChangelogProducer.Input)(
    IntegralKey.of(bufferSchema, layout.trimmedKeys.map(column(_) + 2))).flatten
  private val sortOrdering = {
    val direction = if (spec.sequenceDescending) Descending else Ascending
    GenerateOrdering.generate(groupOrder.map(SortOrder(_, Ascending)) ++
      spec.sequenceFields.map(f => SortOrder(buffered(f), direction, NullsFirst, Seq.empty)) :+
      SortOrder(ref(0), if (newestFirst.isDefined) Descending else Ascending))
  }
  private val engine = spec.create(bufferSchema, bucketOrdinal +: keyOrdinals.map(_ + 2))

  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val toPartition = UnsafeProjection.create(schema.partitionKeys.map(buffered))
  private val partitioned = schema.partitionKeys.nonEmpty
  private val trimmedKeyIndices = layout.trimmedKeys.map(column)
  private val settings = table.dataFileSettings
  private val writeBufferSize = options.writeBufferSize

  private var sorter: UnsafeExternalRowSorter = _
  private var bufferedBytes = 0L
  private var arrival = 0L
  private val indexFiles = ArrayBuffer.empty[String]
  private val dataRuns = new BucketRuns(settings)
  private val changelogRuns = if (options.changelogProducer != ChangelogProducer.Input) None
    else Some(new BucketRuns(table.changelogFileSettings))

  /** Writes a row with the kind its `rowkind.field` names, or as an insert. */
  def write(row: InternalRow): Unit = write(row, kindOf(row))

  /** Writes a row as a change of `kind` (one of [[KeyValue]]'s kinds). */
  def write(row: InternalRow, kind: Byte): Unit = {
    keyOrdinals.foreach { i =>
      if (row.isNullAt(i)) {
        val column = schema.fields(i).name
        throw new InvalidDataException(s"table $name: primary-key column '$column' is null in a written row", column)
      }
    }
    crossPartition match {
      case Some(assigner) => assigner.route(row, kind, routed)
      case None => buffer(row, kind, bucketer.bucketOf(row))
    }
  }

  private val crossPartition = bucketing match {
    case c: Bucketing.CrossPartition => Some(new CrossPartitionAssigner(table, c))
    case _ => None
  }
  private val routed: (InternalRow, Byte, Int) => Unit = buffer

  // A method, not a function value: a Function3 would box every row's kind and bucket.
  private def buffer(row: InternalRow, kind: Byte, bucket: Int): Unit = {
    val kv = toBuffer(row)
    kv.setLong(KeyValue.SequenceOrdinal, arrival)
    kv.setByte(KeyValue.KindOrdinal, kind)
    kv.setInt(bucketOrdinal, bucket)
    arrival += 1
    if (sorter == null) sorter = newSorter()
    sorter.insertRow(kv)
    bufferedBytes += kv.getSizeInBytes
    if (bufferedBytes >= writeBufferSize) flush()
  }

  /** Flushes the buffer and returns every data and changelog file written, and the index files that grew. */
  def finish(): WrittenFiles = {
    flush()
    val index = bucketer.writeIndexes()
    indexFiles ++= index.flatMap(_.entries.map(_.fileName))
    WrittenFiles(dataRuns.written.toSeq, changelogRuns.fold(Seq.empty[ManifestEntry])(_.written.toSeq), index)
  }

  /** Deletes every file this writer created and frees the buffer. */
  def abort(): Unit = {
    if (sorter != null) sorter.cleanupResources()
    sorter = null
    dataRuns.abort()
    changelogRuns.foreach(_.abort())
    indexFiles.foreach(n => table.io.delete(table.paths.indexFile(n), recursive = false))
  }

  private def kindOf(row: InternalRow): Byte = rowKindOrdinal match {
    case None => KeyValue.Insert
    case Some(i) =>
      val text = if (row.isNullAt(i)) null else row.getUTF8String(i).toString
      Option(text).flatMap(KeyValue.kindOf).getOrElse(throw new InvalidDataException(
        s"table $name: rowkind.field '${schema.fields(i).name}' holds '$text'; it must be +I, -U, +U or -D",
        schema.fields(i).name))
  }

  /**
   * The low half of the sort prefix, below the bucket: when the order continues with an integral key
   * column (no partition columns in between), that key clamped to 32 bits, which keeps the prefix
   * order-preserving and settles most comparisons without the full row comparator; else 0.
   */
  private val prefixLow: InternalRow => Long = {
    def clamped(key: Long): Long = math.min(math.max(key, Int.MinValue.toLong), Int.MaxValue.toLong) - Int.MinValue
    if (schema.partitionKeys.nonEmpty) _ => 0L
    else {
      val i = column(layout.trimmedKeys.head) + 2
      bufferSchema(i).dataType match {
        case ByteType => r => clamped(r.getByte(i).toLong)
        case ShortType => r => clamped(r.getShort(i).toLong)
        case IntegerType | DateType => r => clamped(r.getInt(i).toLong)
        case LongType | TimestampType | TimestampNTZType => r => clamped(r.getLong(i))
        case _ => _ => 0L
      }
    }
  }

  private def newSorter(): UnsafeExternalRowSorter = {
    val prefix = new UnsafeExternalRowSorter.PrefixComputer {
      private val result = new UnsafeExternalRowSorter.PrefixComputer.Prefix
      override def computePrefix(row: InternalRow): UnsafeExternalRowSorter.PrefixComputer.Prefix = {
        result.value = (row.getInt(bucketOrdinal).toLong << 32) | prefixLow(row)
        result
      }
    }
    UnsafeExternalRowSorter.create(bufferSchema, sortOrdering, PrefixComparators.LONG, prefix,
      SparkEnv.get.memoryManager.pageSizeBytes, false)
  }

  /**
   * Writes the buffer as one sorted run per (partition, bucket) in it. With the `input` changelog
   * producer every buffered row, unmerged and with its kind, also goes to the bucket's changelog
   * file, in the same order and with the same sequence numbers.
   */
  private def flush(): Unit = if (sorter != null) {
    val sorted = sorter.sort()
    sorter = null
    bufferedBytes = 0
    val merged = newestFirst match {
      case Some(key) => NewestVersions.of(sorted, bucketOrdinal, key, spec.ignoreDelete)
      case None => mergeOldestFirst(sorted.map(_.copy()))
    }
    merged.foreach { kv =>
      val (writer, base) = dataRuns.writerFor(kv)
      kv.setLong(KeyValue.SequenceOrdinal, base + kv.getLong(KeyValue.SequenceOrdinal))
      writer.write(kv)
    }
    dataRuns.close()
    changelogRuns.foreach(_.close())
  }

  // Finding a key's end reads past its last version: the merge holds copies of the buffer's rows.
  private def mergeOldestFirst(sorted: Iterator[InternalRow]): Iterator[InternalRow] = {
    val input = changelogRuns match {
      case None => sorted
      case Some(changelog) => sorted.map { kv =>
        val arrival = kv.getLong(KeyValue.SequenceOrdinal)
        val (writer, base) = changelog.writerFor(kv)
        kv.setLong(KeyValue.SequenceOrdinal, base + arrival)
        writer.write(kv)
        kv.setLong(KeyValue.SequenceOrdinal, arrival)
        kv
      }
    }
    new SortedRunMerge(Seq(input), groupOrdering, engine, dropRetractions = false, uniqueKeys = false)
  }

  /**
   * Level-0 files of rows that come grouped by (bucket, partition): one writer per group, opened
   * when the group starts, with the group's first sequence number.
   */
  private final class BucketRuns(fileSettings: DataFileSettings) {
    private var bucket = -1
    private var partition: UnsafeRow = _
    private var partitionBytes: Array[Byte] = _
    private var total = 0
    private var writer: KeyValueFileWriter = _
    private var base = 0L
    private val all = ArrayBuffer.empty[KeyValueFileWriter]
    val written = ArrayBuffer.empty[ManifestEntry]

    def writerFor(kv: InternalRow): (KeyValueFileWriter, Long) = {
      val p = if (partitioned || partition == null) toPartition(kv) else partition
      if (writer == null || kv.getInt(bucketOrdinal) != bucket || p != partition) {
        close()
        bucket = kv.getInt(bucketOrdinal)
        partition = p.copy()
        partitionBytes = BinaryRow.serialize(partitionTypes, partition)
        total = bucketing.totalBuckets(RowBucketer.partitionKey(partitionBytes), layout.buckets)
        restored.requireBucketCount(table, partitionBytes, total)
        base = restored.nextSequences.getOrElse(sequenceKey(partitionBytes, bucket), 0L)
        writer = new KeyValueFileWriter(fileSettings, table.paths.bucketDir(table.partitionPathOf(partition), bucket),
          schema.fields, trimmedKeyIndices, level = 0, FileSource.Append)
        all += writer
      }
      (writer, base)
    }

    def close(): Unit = if (writer != null) {
      written ++= writer.finish().map(ManifestEntry(FileKind.Add, partitionBytes, bucket, total, _))
      writer = null
    }

    def abort(): Unit = all.foreach(_.abort())
  }
}

object PrimaryKeyWriter {
  /** How `nextSequences` names a bucket. */
  def sequenceKey(partition: Array[Byte], bucket: Int): String =
    s"$bucket:${java.util.Base64.getEncoder.encodeToString(partition)}"
}
