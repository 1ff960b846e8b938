package paimonspark.spark.read

import java.nio.ByteBuffer
import java.util.OptionalLong

import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, Statistics,
  SupportsReportPartitioning, SupportsReportStatistics}
import org.apache.spark.sql.connector.read.partitioning.Partitioning
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{DataField, SparkTypes}
import paimonspark.format.metadata.{DataFileMeta, FileIdentifier, Snapshot, TableSchema}
import paimonspark.lsm.{KeyRanges, MergeEngineSpec}
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate}
import paimonspark.table.scan.{DataSplit, ScanPlanner, SplitPacking}
import paimonspark.table.write.PrimaryKeyWriter

/**
 * What every scan of a table snapshot shares: the split of the requested columns into
 * data columns (read from files) and partition columns (taken from manifests, appended last), the
 * planned splits, statistics, the layout reported to Spark ([[BucketLayout]]), and the paths of the
 * data files to open.
 */
abstract class TableScan(val table: FileStoreTable, required: StructType, predicate: Option[Predicate],
    buckets: Option[Set[String]] = None, fileFilter: DataFileMeta => Boolean = _ => true)
    extends Scan with Batch with SupportsReportStatistics with SupportsReportPartitioning {

  protected val schema = table.schema
  protected val partitionNames: Set[String] = schema.partitionKeys.toSet
  /** Whether the file path metadata column is read; it comes after the partition columns. */
  protected val readsFilePath: Boolean = required.fieldNames.contains(FilePathColumn.Name)
  /** Whether the row position metadata column is read; it comes last, and files are then read whole. */
  protected val readsRowIndex: Boolean = required.fieldNames.contains(RowIndexColumn.Name)
  protected val readDataSchema: StructType = StructType(required.filterNot(f => partitionNames.contains(f.name) ||
    f.name == FilePathColumn.Name || f.name == RowIndexColumn.Name || f.name == BucketColumn.Name))
  private val readPartitions = required.filter(f => partitionNames.contains(f.name))
  private val partitionPositions = readPartitions.map(f => schema.partitionKeys.indexOf(f.name))
  private val readsBucket = required.fieldNames.contains(BucketColumn.Name)
  /** What each split appends to its rows: the requested partition columns, then the bucket ([[BucketColumn]]). */
  protected val readPartitionSchema: StructType =
    StructType(readPartitions ++ (if (readsBucket) Seq(BucketColumn.field) else Nil))
  /** The table's columns as files store them (CHAR/VARCHAR as strings). */
  protected val tableStruct: StructType = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false))

  /**
   * Planned once per scan, so statistics and partitions describe the same snapshot; only the
   * `buckets` given (as [[PrimaryKeyWriter.sequenceKey]] names them), when given, and the files
   * `fileFilter` keeps.
   */
  private lazy val plannedSplits: Seq[DataSplit] = new ScanPlanner(table, appliesDeletionVectors = appliesDeletionVectors)
    .plan(snapshot, predicate)
    .filter(s => buckets.forall(_.contains(PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket))))
    .map(s => s.copy(files = s.files.filter(fileFilter))).filter(_.files.nonEmpty)

  /** The snapshot this scan reads. */
  lazy val snapshot: Option[Snapshot] = table.currentSnapshot()

  /**
   * Whether this scan reads deletion vectors' files with their vectors applied ([[SchemaRoutingFactory]]):
   * the scans of files read as they are.
   */
  protected def appliesDeletionVectors: Boolean = false

  /** Whether files are read whole, each by one reader counting positions from its first row. */
  protected def readsWholeFiles: Boolean = readsRowIndex

  /** What the reader of a file is told of it besides its schema and deletion vector ([[PartitionedFile]] metadata). */
  protected def fileMetadata(file: DataFileMeta): Map[String, Any] = Map.empty

  /** Whether a planned file has a deletion vector: its reads then push no filters, so positions stay whole. */
  protected lazy val hasDeletionVectors: Boolean = plannedSplits.exists(_.deletionFiles.nonEmpty)

  /** The paths a run-time filter kept ([[keepFiles]]); None keeps every planned file. */
  @volatile private var keptPaths: Option[Set[String]] = None

  protected def splits: Seq[DataSplit] = keptPaths.fold(plannedSplits) { kept =>
    plannedSplits.map(s => s.copy(files = s.files.filter(f => kept(dataFilePath(s, f).toString)))).filter(_.files.nonEmpty)
  }

  /** Narrows the scan to the planned files at these paths, once Spark knows which hold a changed row. */
  protected def keepFiles(paths: Set[String]): Unit = keptPaths = Some(keptPaths.fold(paths)(_ intersect paths))

  override def readSchema(): StructType =
    StructType(readDataSchema ++ readPartitionSchema ++ (if (readsFilePath) Seq(FilePathColumn.field) else Nil) ++
      (if (readsRowIndex) Seq(RowIndexColumn.field) else Nil))

  override def toBatch: Batch = this

  override def estimateStatistics(): Statistics = new Statistics {
    override def sizeInBytes(): OptionalLong = OptionalLong.of(splits.flatMap(_.files).map(_.fileSize).sum)
    override def numRows(): OptionalLong = OptionalLong.of(splits.flatMap(_.files).map(_.rowCount).sum)
  }

  /** The bucket layout this scan reports, when it holds for every planned split. */
  protected lazy val bucketLayout: Option[BucketLayout] = BucketLayout.of(table, plannedSplits, readSchema())

  override def outputPartitioning(): Partitioning =
    bucketLayout.fold(BucketLayout.Unreported)(_.partitioning(planInputPartitions().length))

  /**
   * The tasks of `pieces` as `pack` packs them; with a reported layout, each bucket's pieces are
   * packed apart, so that a task holds one bucket (Spark groups a bucket's tasks where it must).
   */
  protected def tasksPerBucket[A](pieces: Seq[A], split: A => DataSplit)(pack: Seq[A] => Seq[InputPartition])
      : Seq[InputPartition] = bucketLayout match {
    case None => pack(pieces)
    case Some(_) => pieces.groupBy(split(_).bucket).toSeq.sortBy(_._1).flatMap { case (bucket, ofBucket) =>
      pack(ofBucket).map(BucketTask(bucket, _))
    }
  }

  override def createReaderFactory(): PartitionReaderFactory = new BucketTaskReaderFactory(readerFactory())

  /** The readers of this scan's tasks, [[BucketTask]]s unwrapped. */
  protected def readerFactory(): PartitionReaderFactory

  /** The values of the requested partition columns of a split, in output order, then its bucket if requested. */
  protected def partitionValues(split: DataSplit): GenericInternalRow =
    new GenericInternalRow((partitionPositions.map(p => split.partition.values(p)) ++
      (if (readsBucket) Seq(split.bucket) else Nil)).toArray[Any])

  /** How this scan packs its tasks ([[ReadPacking]]). */
  protected lazy val packing: SplitPacking = ReadPacking.of(table)

  /** The most one task reads, for all of this scan's files together. */
  protected lazy val splitSize: Long = packing.splitSize(splits.flatMap(_.files).map(f => packing.weight(f.fileSize, 1)).sum)

  /** Where large files are cut: at the split size, but never into pieces cheaper to read than to open. */
  private lazy val cutSize: Long = math.max(1L, math.max(splitSize, packing.openFileCost))

  /**
   * Files read as they are, cut at `cutSize` and packed into tasks largest first, as Spark's
   * file sources do; each piece records its file's schema id for [[SchemaRoutingFactory]].
   */
  protected def filePartitions(files: Seq[(DataSplit, DataFileMeta)]): Seq[FilePartition] = {
    val pieces = files.flatMap { case (split, file) =>
      val path = dataFilePath(split, file)
      // Spark's file readers append these values to every row: the partition's, then the file's path.
      val partition = partitionValues(split)
      val values = if (readsFilePath) new GenericInternalRow(partition.values :+ UTF8String.fromString(path.toString))
        else partition
      val size = file.fileSize
      // A file with a deletion vector, or whose row positions are read, is read whole: its reader
      // counts row positions from the start.
      val deletion = split.deletionFiles.get(file.fileName)
      val metadata = Map[String, Any](SchemaReaders.SchemaIdKey -> file.schemaId) ++
        deletion.map(SchemaReaders.DeletionFileKey -> _.encoded) ++ fileMetadata(file)
      val cut = if (deletion.isDefined || readsWholeFiles) size.max(1L) else cutSize
      (0L until size by cut).map { start =>
        PartitionedFile(values, SparkPath.fromPath(path), start, math.min(cut, size - start), Array.empty[String], 0L,
          size, metadata)
      }
    }
    packing.pack(pieces.sortBy(-_.length), (p: PartitionedFile) => packing.weight(p.length, 1), splitSize)
      .zipWithIndex.map { case (task, i) => FilePartition(i, task.toArray) }
  }

  /** The planned files by the path a reader gives them ([[FilePathColumn]]), with their splits. */
  def plannedFilesByPath: Map[String, (DataSplit, DataFileMeta)] =
    splits.flatMap(s => s.files.map(f => dataFilePath(s, f).toString -> (s, f))).toMap

  /** The planned files, as commits identify them. */
  def plannedFiles: Set[FileIdentifier] =
    splits.flatMap(s => s.files.map(f => FileIdentifier.of(s.partitionBytes, s.bucket, f))).toSet

  /** Whether every planned bucket of a primary-key table holds each key once, merged ([[KeyRanges.oneVersionPerKey]]). */
  def plansOneVersionPerKey: Boolean = {
    val ranges = new KeyRanges(KeyLayout.of(table.location.toString, schema).trimmedKeys.map(schema.field(_).dataType))
    val anyLevel = table.options.deletionVectors || MergeEngineSpec.of(table.location.toString, schema).engine == "first-row"
    splits.groupBy(s => (ByteBuffer.wrap(s.partitionBytes), s.bucket)).values
      .forall(bucket => ranges.oneVersionPerKey(bucket.flatMap(_.files), anyLevel))
  }

  /** The schemas the planned files were written with, each read once. */
  protected lazy val plannedSchemas: Seq[TableSchema] = splits.flatMap(_.files.map(_.schemaId)).distinct.map(table.schemaWithId)

  /** The table's fields the scan reads from files, with their ids. */
  protected def readDataFields: Seq[DataField] = SparkTypes.prune(schema.fields, readDataSchema)

  /** Where a data file of a split lives (planning refused files of other formats). */
  protected def dataFilePath(split: DataSplit, file: DataFileMeta): Path =
    table.dataFilePath(split.partitionBytes, split.bucket, file)
}
