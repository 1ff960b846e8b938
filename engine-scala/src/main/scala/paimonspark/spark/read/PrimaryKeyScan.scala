package paimonspark.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.format.{DataField, KeyValueFields, SparkTypes}
import paimonspark.format.metadata.DataFileMeta
import paimonspark.lsm.{KeyRanges, KeyValue, MergeEngineSpec, SequenceRanges}
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate}
import paimonspark.table.scan.DataSplit

/**
 * A file merged on read, of LSM `level`. `sequence` stands in for its `_SEQUENCE_NUMBER` column,
 * which is then not read, when its section's files have disjoint sequence ranges ([[SequenceRanges]]).
 */
final case class MergeFile(path: String, size: Long, schemaId: Long, sequence: Option[Long], level: Int)

/** A key range of one bucket of a primary-key table, merged on read: its files and its partition's values. */
final case class MergeSection(partitionValues: InternalRow, files: Array[MergeFile])

/**
 * The key ranges one task merges, one after another; packed by size ([[ReadPacking]]), they may
 * come from many buckets and partitions.
 */
final case class MergeSplit(sections: Array[MergeSection]) extends InputPartition

/**
 * A batch scan of a primary-key table. Each bucket's files are cut into sections by key range; a
 * section that is one file above level 0 without retractions holds one version per key and is read
 * as it is, the others are merged by key, packed into tasks by size across partitions and buckets
 * (each bucket apart when the scan reports its [[BucketLayout]]); both are columnar when the
 * engine's result is one of the versions merged and Spark can read the columns as batches. Only
 * key filters reach merged files: skipping an old file's row group by a value filter could
 * resurrect an older version of a key. Spark applies every filter again after the scan.
 */
final class PrimaryKeyScan(table: FileStoreTable, required: StructType, filters: Seq[Filter], predicate: Option[Predicate],
    rowKind: Boolean = false, buckets: Option[Set[String]] = None, fileFilter: DataFileMeta => Boolean = _ => true,
    everyLevel: Boolean = false)
    extends TableScan(table, if (rowKind) StructType(required.filterNot(_.name == ChangeColumns.RowKind)) else required,
      predicate, buckets, fileFilter) {

  private val layout = KeyLayout.of(table.location.toString, schema)
  private val keyNames = layout.trimmedKeys
  private val ranges = new KeyRanges(keyNames.map(k => schema.field(k).dataType))

  private val engine = MergeEngineSpec.of(table.location.toString, schema)

  /**
   * What the merge reads of each file: sequence, kind, the key, then the other required columns
   * and the sequence fields that order versions.
   */
  private val mergeFields: Seq[DataField] = {
    val rest = (readDataSchema.fieldNames.toSeq ++ engine.orderingFields).distinct.filterNot(keyNames.contains)
    Seq(KeyValueFields.SequenceNumber, KeyValueFields.ValueKind) ++ (keyNames ++ rest).map(schema.field)
  }
  private val mergeSchema: StructType = SparkTypes.physical(SparkTypes.toSparkStruct(mergeFields, withFieldIds = false))

  /** With `rowKind` (`$audit_log`), every row is led by its kind, and retractions are kept. */
  override def readSchema(): StructType =
    if (rowKind) StructType(ChangeColumns.AuditLog.leading ++ super.readSchema().fields) else super.readSchema()

  // Rows read as they are would carry no kind: with `rowKind` every section is merged.
  private def readAsIs(section: Seq[DataFileMeta]): Boolean =
    !rowKind && section.size == 1 && section.head.level > 0 && section.head.deleteRowCount.contains(0L)

  /** A split, its files read as they are and its sections to merge. */
  private type Planned = (DataSplit, Seq[DataFileMeta], Seq[Seq[DataFileMeta]])

  /**
   * Per split, its sections read as they are and those to merge; planned once. Tables of the
   * first-row engine only show files above level 0, as in Paimon: compaction makes rows visible;
   * `everyLevel` reads those too (the keys a cross-partition write looks up, as Paimon's bootstrap).
   */
  private lazy val planned: Seq[Planned] = splits.map { split =>
    val visible = if (engine.engine == "first-row" && !everyLevel) split.files.filter(_.level > 0) else split.files
    val (asIs, merged) = ranges.sections(visible).partition(readAsIs)
    (split, asIs.flatten, merged)
  }

  override def description(): String =
    s"PaimonScan (merge on read) ${table.location} [${readSchema().fieldNames.mkString(", ")}]"

  override def planInputPartitions(): Array[InputPartition] = tasksPerBucket(planned, (p: Planned) => p._1)(tasks).toArray

  private def tasks(planned: Seq[Planned]): Seq[InputPartition] = {
    val asIs = filePartitions(planned.flatMap { case (split, files, _) => files.map(split -> _) })
    val sections = planned.flatMap { case (split, _, sections) =>
      val values = partitionValues(split)
      sections.map { section =>
        val standIns = SequenceRanges.disjointWhereKeysMeet(section, ranges)
        MergeSection(values, section.map(f => MergeFile(dataFilePath(split, f).toString, f.fileSize, f.schemaId,
          if (standIns) Some(f.maxSequenceNumber) else None, f.level)).toArray)
      }
    }
    val merged = packing.pack(sections, (s: MergeSection) => packing.weight(s.files.map(_.size).sum, s.files.length),
      splitSize)
    asIs ++ merged.map(task => MergeSplit(task.toArray))
  }

  override protected def readerFactory(): PartitionReaderFactory = {
    val fileFields = SchemaReaders.keyValueFields(table.location.toString) _
    val keyFilters = filters.filter(_.references.forall(keyNames.contains))
    val dataFilters = filters.filter(_.references.forall(a => !partitionNames.contains(a)))
    val schemas = plannedSchemas
    val asIs = SchemaReaders.build(table, readDataFields, fileFields, SparkTypes.physical(readPartitionSchema),
      dataFilters, schemas)
    val merged = SchemaReaders.build(table, mergeFields, fileFields, new StructType(), keyFilters, schemas)
    // The merge's columns but `_SEQUENCE_NUMBER`, for files whose sequence number stands in for it.
    val withoutSequence = SchemaReaders.build(table, mergeFields.patch(KeyValue.SequenceOrdinal, Nil, 1), fileFields,
      new StructType(), keyFilters, schemas)
    val outputOrdinals = readDataSchema.map(f => mergeSchema.fieldIndex(f.name))
    val keyOrdinals = keyNames.indices.map(_ + KeyValue.SystemFields.size)
    val columnar = !rowKind && engine.resultIsAVersion && Seq(asIs, merged, withoutSequence).forall(_.columnar)
    val batchSize = SparkSession.active.sessionState.conf.parquetVectorizedReaderBatchSize
    val merge = new MergeReaderFactory(new SparkFileReader(merged), new SparkFileReader(withoutSequence),
      mergeSchema, keyOrdinals, outputOrdinals, readPartitionSchema, engine, columnar, batchSize, rowKind)
    new PrimaryKeyReaderFactory(new SchemaRoutingFactory(asIs), merge, columnar)
  }
}

/**
 * Reads file partitions as they are and merge splits by merging; Spark takes a scan as columnar or
 * not as a whole, so it is columnar only when both kinds can be.
 */
final class PrimaryKeyReaderFactory(asIs: PartitionReaderFactory, merge: PartitionReaderFactory, columnar: Boolean)
    extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = columnar
  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = partition match {
    case m: MergeSplit => merge.createColumnarReader(m)
    case other => asIs.createColumnarReader(other)
  }
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = partition match {
    case m: MergeSplit => merge.createReader(m)
    case other => asIs.createReader(other)
  }
}
