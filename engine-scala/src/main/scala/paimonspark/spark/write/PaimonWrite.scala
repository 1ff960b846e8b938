package paimonspark.spark.write

import java.util.UUID

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions, UnspecifiedDistribution}
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write._

import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}

import paimonspark.{CommitConflictException, UnsupportedFeatureException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{Snapshot, SnapshotJson}
import paimonspark.spark.SparkTable
import paimonspark.spark.catalog.{BucketFunction, PaimonFunctions}
import paimonspark.spark.read.SparkFileReader
import paimonspark.table.{BucketFunctionType, KeyLayout, TableOptions}
import paimonspark.table.compact.{CompactResult, TableCompaction, WriteCompaction}
import paimonspark.table.options.ChangelogProducer
import paimonspark.table.write.{AppendBuckets, Bucketing, OverwriteScope, PrimaryKeyWriter, TableCommit, WriteRestore,
  WrittenFiles}

/**
 * What one task wrote: the ADD entries of its data and changelog files, its index changes, and the
 * compactions it ran on the buckets it wrote ([[WriteCompaction]]).
 */
final case class FilesWritten(files: WrittenFiles, compacted: Seq[CompactResult] = Nil) extends WriterCommitMessage

/**
 * A batch write: executors write data files, the driver commits them as one snapshot.
 *  - Append tables: rows are sorted by partition within each task (as Spark's file sources do), so
 *    a task keeps one file open at a time.
 *  - Primary-key tables: rows are clustered by (partition, Paimon bucket), so each bucket is written
 *    by one task, which sorts and merges them itself ([[PrimaryKeyWriter]]).
 */
final class PaimonWrite(table: SparkTable, replaces: Option[() => OverwriteScope], queryId: String,
    replacesPartitions: Boolean = false) extends Write with RequiresDistributionAndOrdering with BatchWrite with StreamingWrite {

  private val store = table.store
  private val partitions = store.schema.partitionKeys.map(k => Expressions.column(k): Expression)
  private lazy val bucketing = Bucketing.plan(store, SparkSession.active.sparkContext.defaultParallelism, replacesPartitions)

  // Fixed buckets, of a primary-key table or a bucketed append table.
  private val bucketed = store.options.bucket > 0

  /**
   * Fixed buckets: rows clustered by (partition, bucket). Dynamic buckets: by (partition, assigner),
   * the assigner being the same function of the key hash the writer uses, so each (partition,
   * assigner) is written by one task that owns its buckets and their HASH index.
   */
  override def requiredDistribution(): Distribution =
    if (!store.isPrimaryKeyTable && !bucketed) Distributions.unspecified()
    // A key's rows go to one task whatever their partition: its assigner's, which looks it up.
    else if (bucketing.isInstanceOf[Bucketing.CrossPartition]) Distributions.clustered(Array(bucketOfRow))
    else Distributions.clustered((partitions :+ bucketOfRow).toArray)

  /**
   * A bucket of an unpartitioned table is the unit of a write's work: one writer sorts, flushes and
   * compacts it. Left to its defaults, adaptive execution packs the shuffle's partitions into tasks
   * of up to 64 MiB or a core's share of the input, so one task wrote several buckets one after
   * another (a batch into 8 buckets ran as 3 tasks on 2 cores, the third alone). The smallest
   * advisory size keeps every bucket that outgrows Spark's minimum partition size (1 MiB) a task of
   * its own. Partitioned tables keep Spark's packing: their writes span many small (partition,
   * bucket) pieces, and a task per megabyte of them cost more than it saved (docs/limits.md).
   */
  override def advisoryPartitionSizeInBytes(): Long =
    if (partitions.isEmpty && !requiredDistribution().isInstanceOf[UnspecifiedDistribution]) 1L else 0L

  /** The bucket of a row as the writers compute it: the table's bucket function, or the dynamic assigner. */
  private def bucketOfRow: Expression = {
    val layout = KeyLayout.of(table.name(), store.schema)
    val function = PaimonFunctions.of(BucketFunctionType.of(store.options))
    // A postpone-bucket write clusters by its default count: a key is written by one task all the same.
    val (name, n, columns) = bucketing match {
      case Bucketing.Fixed(buckets) => (function, buckets, layout.bucketKeys)
      case Bucketing.PerPartition(_, default) => (function, default, layout.bucketKeys)
      case Bucketing.Postpone => (BucketFunction.Name, SparkSession.active.sparkContext.defaultParallelism, layout.trimmedKeys)
      case d: Bucketing.Dynamic => (BucketFunction.Name, d.assigners, layout.trimmedKeys)
      case c: Bucketing.CrossPartition => (BucketFunction.Name, c.assigners, layout.primaryKeys)
    }
    Expressions.apply(name, (Expressions.literal(n) +: columns.map(Expressions.column)): _*)
  }

  /** Append tables: sorted by partition (and bucket), so a task keeps one file open at a time. */
  override def requiredOrdering(): Array[SortOrder] =
    if (store.isPrimaryKeyTable) Array.empty
    else (if (bucketed) partitions :+ bucketOfRow else partitions).map(Expressions.sort(_, SortDirection.ASCENDING)).toArray

  override def toBatch: BatchWrite = this

  // Spark's coordinator lets one attempt of each task commit (speculation, retries), as both interfaces default to.
  override def useCommitCoordinator(): Boolean = true

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = writerFactory(bucketing)

  private def writerFactory(bucketing: Bucketing): DataWriterFactory =
    if (store.isPrimaryKeyTable) primaryKeyFactory(bucketing)
    else if (bucketed) new AppendWriterFactory(store, AppendBuckets.Fixed(forWriters(restore())))
    else new AppendWriterFactory(store)

  // The snapshot the last writer factory planned buckets and sequences at, which its commit checks against.
  @volatile private var plannedAt: Option[Long] = None

  private def restore(): WriteRestore = planned(WriteRestore.of(store))

  private def planned(restored: WriteRestore): WriteRestore = {
    plannedAt = Some(restored.snapshotId.getOrElse(0L))
    restored
  }

  /**
   * Whether the tasks of a write to a primary-key table compact the buckets they wrote, as Paimon's
   * writers do. Not for writes that replace files (their buckets' files are about to go), not for
   * `write-only` or postpone-bucket tables (compacted by CALL only), and not with the
   * `full-compaction` changelog producer, whose schedule the driver keeps ([[compactWritten]]).
   */
  private val compactsInTasks = store.isPrimaryKeyTable && replaces.isEmpty && !store.options.writeOnly &&
    store.options.bucket != TablePaths.PostponeBucket && store.options.changelogProducer != ChangelogProducer.FullCompaction

  // Writers that replace partitions do not hold on to the bucket counts of the ones they replace.
  private def forWriters(restored: WriteRestore): WriteRestore = if (replacesPartitions) restored.replacingPartitions else restored

  private def primaryKeyFactory(bucketing: Bucketing) = {
    val (restored, compaction) = if (!compactsInTasks) (restore(), None) else {
      val (restored, compaction) = WriteCompaction.plan(store, SparkFileReader.forCompaction(store))
      (planned(restored), Some(compaction))
    }
    new PrimaryKeyWriterFactory(store, forWriters(restored), bootstrapped(bucketing, restored), compaction)
  }

  // The bootstrap files a cross-partition write reads (name prefix, assigners), deleted once it ends.
  @volatile private var keyFiles: Option[(String, Int)] = None
  // The snapshot at which a cross-partition write looked its keys up, which its commit checks against.
  @volatile private var keysReadAt: Option[Long] = None

  /**
   * The bucketing as the writers run it, from what the table held at `restored`. A postpone-bucket
   * batch write keeps each partition's bucket count (an overwrite too, as Paimon's writer does).
   * A cross-partition write looks keys up where the snapshot its sequences continue from holds
   * them (a copy-on-write statement's rows so go back where they were); one that replaces the whole
   * table starts from no key. Replacing some partitions only is refused: a moved key's retraction
   * would land in a partition outside them.
   */
  private def bootstrapped(bucketing: Bucketing, restored: WriteRestore): Bucketing = bucketing match {
    case p: Bucketing.PerPartition => p.copy(known = restored.partitionBuckets)
    case c: Bucketing.CrossPartition => replaces.map(_()) match {
      case None | Some(OverwriteScope.Files(_) | OverwriteScope.Marked(_)) =>
        val keys = CrossPartitionBootstrap.run(store, restored.snapshotId, c.assigners)
        keyFiles = keys.map(_ -> c.assigners)
        keysReadAt = Some(restored.snapshotId.getOrElse(0L))
        c.copy(keys = keys)
      case Some(OverwriteScope.WholeTable) => c
      case Some(_) => throw new UnsupportedFeatureException(s"table ${table.name()}: INSERT OVERWRITE of some partitions " +
        "of a table whose primary key leaves out a partition column (a cross-partition upsert table) is not supported: " +
        "a key moved out of them would stay in its old partition; overwrite the whole table, or use MERGE INTO",
        TableOptions.Bucket)
    }
    case other => other
  }

  // The commit of this write's files, once one started: a failure after it (an answer lost, what runs after a
  // published snapshot) may leave them in the table, so abort deletes them only when it did not land.
  @volatile private var attempted: Option[(String, Long)] = None

  /** Whether the attempted commit landed, or may have: its outcome unknown when the table cannot be read now. */
  private def mayHaveLanded: Boolean = attempted.exists { case (user, identifier) =>
    try new TableCommit(store, user).committed(identifier) catch { case scala.util.control.NonFatal(_) => true }
  }

  private def dropKeyFiles(): Unit = {
    keyFiles.foreach { case (prefix, assigners) => CrossPartitionBootstrap.delete(store, prefix, assigners) }
    keyFiles = None
  }

  /** The writers of a primary-key table's row-level changes ([[KeyDeltaWrite]]). */
  def primaryKeyWriterFactory: PrimaryKeyWriterFactory = primaryKeyFactory(bucketing)

  override def commit(messages: Array[WriterCommitMessage]): Unit =
    commitFiles(UUID.randomUUID().toString, messages, SnapshotJson.BatchCommitIdentifier)

  private def commitFiles(commitUser: String, messages: Array[WriterCommitMessage], identifier: Long): Unit = {
    attempted = Some(commitUser -> identifier)
    val tasks = messages.toSeq.collect { case f: FilesWritten => f }
    val written = tasks.map(_.files)
    val entries = written.flatMap(_.data)
    // What is replaced is decided only now: a copy-on-write scan may have narrowed its files at run time.
    val committed = try new TableCommit(store, commitUser).commit(entries, replaces.map(_()), written.flatMap(_.index),
      written.flatMap(_.changelog), identifier, bucketsPlannedAt = plannedAt, keysReadAt = keysReadAt)
    finally dropKeyFiles()
    // Postpone-bucket tables are compacted by CALL only, as Paimon's writers leave them.
    if (entries.nonEmpty && !store.options.writeOnly && store.options.bucket != TablePaths.PostponeBucket) {
      committed.foreach(compactWritten(tasks, identifier, _))
    }
  }

  /**
   * A streaming write: each micro-batch is one commit whose user is the query's (the same across
   * restarts from its checkpoint) and whose identifier is the batch id. A batch replayed after a
   * failure between its commit and Spark's checkpoint finds its snapshot and commits nothing, so no
   * micro-batch is ever committed twice. Complete mode replaces the whole table each batch.
   */
  override def toStreaming: StreamingWrite = this

  private def streamCommitUser: String = s"spark-streaming-$queryId"

  /** Sequence numbers and dynamic-bucket indexes continue from what the last batch committed. */
  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory = {
    val batch = writerFactory(Bucketing.plan(store, SparkSession.active.sparkContext.defaultParallelism, replacesPartitions,
      streaming = true))
    (partitionId: Int, taskId: Long, _: Long) => batch.createWriter(partitionId, taskId)
  }

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit =
    if (new TableCommit(store, streamCommitUser).committed(epochId)) {
      PaimonWrite.log.warn(s"Micro-batch $epochId of query $queryId is already committed to ${table.name()} " +
        "(a replay after a failure); its files are dropped")
      attempted = None
      abort(messages)
    } else commitFiles(streamCommitUser, messages, epochId)

  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit = {
    attempted = attempted.filter(_._2 == epochId)
    abort(messages)
  }

  /**
   * Inline compaction, as Paimon writers do unless `write-only`: the buckets just written are
   * compacted by the universal picker (primary-key tables), or the small files of the partitions
   * just written once there are `compaction.min.file-num` of them (append tables), in a COMPACT
   * snapshot after the write's own. With the `full-compaction` changelog producer, the buckets are
   * compacted fully after every batch write and every `full-compaction.delta-commits`-th streaming
   * micro-batch, as Paimon's writers do at the end of input and at those checkpoints. The write is
   * committed already, so losing to a concurrent compaction only skips this one. Where the tasks
   * compacted their buckets ([[compactsInTasks]]), only their results are committed here; else the
   * driver plans and runs the compaction as a job of its own. So it does when two tasks compacted
   * one bucket (a bucket written by two tasks, as when a cross-partition table's assigner count
   * changed): both merged the bucket's old files, which must not be committed twice.
   */
  private def compactWritten(tasks: Seq[FilesWritten], identifier: Long, committed: Snapshot): Unit = {
    val results = tasks.flatMap(_.compacted)
    val buckets = results.map(r => PrimaryKeyWriter.sequenceKey(r.task.partition, r.task.bucket))
    val bucketsCompactedTwice = buckets.distinct.size < buckets.size
    if (bucketsCompactedTwice) TableCompaction.discard(store, results)
    try if (compactsInTasks && !bucketsCompactedTwice) TableCompaction.commit(store, UUID.randomUUID().toString, results) else {
      val entries = tasks.flatMap(_.files.data)
      val options = store.options
      val full = store.isPrimaryKeyTable && options.changelogProducer == ChangelogProducer.FullCompaction &&
        (identifier == SnapshotJson.BatchCommitIdentifier || identifier % options.fullCompactionDeltaCommits == 0)
      CompactJob.afterWrite(store, committed, full, entries.map(e => PrimaryKeyWriter.sequenceKey(e.partition, e.bucket)).toSet,
        entries.map(_.partitionKey).toSet)
    } catch {
      case e: CommitConflictException => PaimonWrite.log.warn(s"Inline compaction of ${table.name()} skipped: ${e.getMessage}")
    }
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit = {
    dropKeyFiles()
    if (!mayHaveLanded) messages.toSeq.collect { case f: FilesWritten => f }.foreach { case FilesWritten(f, compacted) =>
      TableCompaction.discard(store, compacted)
      (f.data ++ f.changelog).foreach(e => store.io.delete(store.dataFilePath(e.partition, e.bucket, e.file), recursive = false))
      f.index.flatMap(_.entries).foreach(e => store.io.delete(store.paths.indexFile(e.fileName), recursive = false))
    }
  }
}

private object PaimonWrite {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[PaimonWrite])
}
