package paimonspark.table.scan

import scala.collection.mutable
import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.table.{ColumnRange, FileStoreTable, Predicate, TableFeatures}
import paimonspark.table.options.Access
import paimonspark.table.schema.StatsWidening

/** The files of one (partition, bucket) to read, with the partition's values. */
final case class DataSplit(partition: GenericInternalRow, partitionBytes: Array[Byte], bucket: Int, files: Seq[DataFileMeta],
    deletionFiles: Map[String, DeletionFile] = Map.empty, totalBuckets: Int = -1)

/**
 * Plans a batch read: snapshot, then manifests (skipped by partition statistics), then live files
 * (skipped by partition values, the buckets of pinned keys and statistics), grouped per partition
 * and bucket. Skipping is only ever conservative: unknown statistics keep a file. Plans of data to
 * read refuse features this engine does not read ([[TableFeatures]]); plans of metadata (`$files`)
 * do not (`checksFeatures` false).
 */
final class ScanPlanner(table: FileStoreTable, checksFeatures: Boolean = true, appliesDeletionVectors: Boolean = false) {
  private val schema = table.schema
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val partitions = new PartitionFilter(schema)
  private val partitionIndex = partitions.partitionIndex
  private val rangeFilter = partitions.ranges
  private val fileSchemas = mutable.Map.empty[Long, TableSchema]
  private val trimmedKeys = schema.primaryKeys.filterNot(schema.partitionKeys.contains)
  private val keyTypes = trimmedKeys.map(k => schema.field(k).dataType.withNullable(true))

  def plan(snapshot: Option[Snapshot], filter: Option[Predicate]): Seq[DataSplit] = snapshot match {
    case None => Nil
    case Some(s) =>
      if (checksFeatures) TableFeatures.requireReadable(table, Some(s), appliesDeletionVectors)
      val store = table.newManifestStore()
      val splits = splitsOf(store.dataManifests(s), filter, (manifests, keep) => store.liveFiles(manifests, keep))
      if (!appliesDeletionVectors) splits else withDeletionFiles(splits, store.indexFiles(Some(s)))
  }

  /** Each split with the deletion vectors of its files, from the snapshot's `DELETION_VECTORS` index files. */
  private def withDeletionFiles(splits: Seq[DataSplit], indexes: Seq[IndexFileEntry]): Seq[DataSplit] = {
    val vectors = indexes.filter(_.indexType == IndexManifestAvro.DeletionVectorsIndex).groupBy(e => (e.partitionKey, e.bucket))
    if (vectors.isEmpty) splits
    else splits.map { split =>
      val files = vectors.getOrElse((java.nio.ByteBuffer.wrap(split.partitionBytes), split.bucket), Nil)
        .flatMap(table.deletionFiles).toMap
      split.copy(deletionFiles = files)
    }
  }

  /**
   * The files one commit added, as its delta or changelog manifest list names them: what readers of
   * changes read. Files the commit removed are not changes of its own.
   */
  def planAdded(manifestList: String, filter: Option[Predicate]): Seq[DataSplit] =
    planDelta(manifestList, FileKind.Add, filter)

  /**
   * The files one commit added or removed (`kind`), as its delta manifest list names them. Deletion
   * vectors do not concern added files: they mark rows of files an earlier commit compacted above
   * level 0, which only a commit's removed files may be.
   */
  def planDelta(manifestList: String, kind: Int, filter: Option[Predicate]): Seq[DataSplit] = {
    if (checksFeatures) TableFeatures.requireSchema(table, Access.Read, appliesDeletionVectors = kind == FileKind.Add)
    val store = table.newManifestStore()
    splitsOf(store.readList(manifestList), filter, (manifests, keep) =>
      manifests.flatMap(m => store.readManifest(m.fileName)).filter(e => e.kind == kind && keep(e)))
  }

  private def splitsOf(all: Seq[ManifestFileMeta], filter: Option[Predicate],
      entries: (Seq[ManifestFileMeta], ManifestEntry => Boolean) => Seq[ManifestEntry]): Seq[DataSplit] = {
    val manifests = all.filter(m => filter.forall(f => manifestMayMatch(m, f)))
    val partitionRows = mutable.Map.empty[java.nio.ByteBuffer, GenericInternalRow]
    def partitionOf(e: ManifestEntry) =
      partitionRows.getOrElseUpdate(e.partitionKey, BinaryRow.deserialize(partitionTypes, e.partition))
    val buckets = filter.flatMap(BucketFilter.buckets(table.location.toString, schema, _))
    // A partition keeps the bucket count its files were written with until it is rescaled.
    val keepPartition = (e: ManifestEntry) => buckets.forall(b => b(if (e.totalBuckets > 0) e.totalBuckets
      else table.options.bucket).contains(e.bucket)) &&
      filter.forall(f => partitions.mayMatch(f, partitionOf(e)))
    // Rows of a postpone-bucket table's postpone bucket are not read until a compaction assigns them
    // buckets, as in Paimon; plans of metadata list those files too.
    val kept = entries(manifests, keepPartition)
      .filter(e => !checksFeatures || e.bucket != TablePaths.PostponeBucket)
      .filter(e => filter.forall(f => rangeFilter.mayMatch(f, fileRange(partitionOf(e), e.file))))
    if (checksFeatures) kept.foreach(e => TableFeatures.requireDataFile(table, e.bucket, e.file))
    kept.groupBy(e => (e.partitionKey, e.bucket)).toSeq.map { case ((_, bucket), entries) =>
      DataSplit(partitionOf(entries.head), entries.head.partition, bucket, entries.map(_.file),
        totalBuckets = entries.head.totalBuckets)
    }
  }

  private def manifestMayMatch(m: ManifestFileMeta, f: Predicate): Boolean = {
    val stats = m.partitionStats
    if (partitionTypes.isEmpty || BinaryRow.holdsNoFields(stats.minValues)) true
    else {
      val mins = BinaryRow.deserialize(partitionTypes, stats.minValues)
      val maxs = BinaryRow.deserialize(partitionTypes, stats.maxValues)
      rangeFilter.mayMatch(f, i => partitionIndex.get(i) match {
        case Some(p) => ColumnRange(mins.values(p), maxs.values(p), None, Long.MaxValue)
        case None => ColumnRange.unknown(Long.MaxValue)
      })
    }
  }

  private def fileRange(partition: GenericInternalRow, file: DataFileMeta): Int => ColumnRange = {
    val fileSchema = fileSchemas.getOrElseUpdate(file.schemaId, table.schemaWithId(file.schemaId))
    val statsFields = file.valueStatsCols match {
      case None => fileSchema.fields
      case Some(cols) => cols.flatMap(c => fileSchema.fields.find(_.name == c))
    }
    val types = statsFields.map(_.dataType.withNullable(true))
    // Stats another writer stored in a form this reader does not decode are treated as unknown.
    lazy val bounds = if (statsFields.isEmpty || BinaryRow.holdsNoFields(file.valueStats.minValues)) None else Try(
      (BinaryRow.deserialize(types, file.valueStats.minValues), BinaryRow.deserialize(types, file.valueStats.maxValues))
    ).toOption
    i => partitionIndex.get(i) match {
      case Some(_) => partitions.range(partition, file.rowCount)(i)
      // Value stats of a primary-key table describe all versions of its keys, not the merged rows;
      // key stats do not have that problem, since every version of a key has the same key.
      case None if table.isPrimaryKeyTable =>
        val pos = trimmedKeys.indexOf(schema.fields(i).name)
        if (pos < 0 || file.schemaId != schema.id || BinaryRow.holdsNoFields(file.keyStats.minValues)) ColumnRange.unknown(file.rowCount)
        else Try {
          val mins = BinaryRow.deserialize(keyTypes, file.keyStats.minValues)
          val maxs = BinaryRow.deserialize(keyTypes, file.keyStats.maxValues)
          val nulls = file.keyStats.nullCounts.flatMap(_.lift(pos)).flatten
          ColumnRange(mins.values(pos), maxs.values(pos), nulls, file.rowCount)
        }.getOrElse(ColumnRange.unknown(file.rowCount))
      case None =>
        val pos = statsFields.indexWhere(_.id == schema.fields(i).id)
        if (pos < 0 || bounds.isEmpty) ColumnRange.unknown(file.rowCount)
        else {
          val nulls = file.valueStats.nullCounts.flatMap(_.lift(pos)).flatten
          val (written, now) = (statsFields(pos).dataType.withNullable(true), schema.fields(i).dataType.withNullable(true))
          val (min, max) = (bounds.get._1.values(pos), bounds.get._2.values(pos))
          if (written == now) ColumnRange(min, max, nulls, file.rowCount)
          else StatsWidening(written, now) match {
            case Some(widen) if min != null && max != null => ColumnRange(widen(min), widen(max), nulls, file.rowCount)
            // Stats of a column retyped otherwise since the file was written are not comparable.
            case _ => ColumnRange.unknown(file.rowCount)
          }
        }
    }
  }
}

object ScanPlanner {
  /** A planner of which files a snapshot holds, for metadata: it reads no data, so no feature stops it. */
  def forMetadata(table: FileStoreTable): ScanPlanner = new ScanPlanner(table, checksFeatures = false)
}
