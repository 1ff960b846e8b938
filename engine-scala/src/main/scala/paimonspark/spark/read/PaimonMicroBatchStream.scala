package paimonspark.spark.read

import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._

import paimonspark.InvalidOptionException
import paimonspark.format.metadata.Json
import paimonspark.spark.{SparkSchemas, SparkTable}
import paimonspark.table.FileStoreTable
import paimonspark.table.changes.{StreamPiece, StreamPlanner, StreamPosition}
import paimonspark.table.write.PrimaryKeyWriter

/** A stream position as Spark checkpoints it. */
final case class PaimonOffset(position: StreamPosition) extends Offset {
  override def json(): String = {
    val n = Json.obj()
    n.put("snapshot", position.snapshotId)
    n.put("full", position.full)
    n.put("index", position.index)
    // One line: Spark's offset log is line-based.
    Json.mapper.writeValueAsString(n)
  }
}

object PaimonOffset {
  def parse(json: String): PaimonOffset = {
    val n = Json.parse(json)
    PaimonOffset(StreamPosition(Json.required(n, "snapshot").asLong(), Json.required(n, "full").asBoolean(),
      Json.required(n, "index").asInt()))
  }
}

/**
 * A Structured Streaming read of a table: its current state first (by `scan.mode`), then the
 * changes of each new snapshot, in pieces ([[StreamPiece]]: a bucket of a full read, a change
 * file) that admission control counts. Offsets are positions between pieces, so a restart from a
 * checkpoint resumes exactly at the next unread piece. With `consumer-id`, each committed batch
 * records the next snapshot in `consumer/`, which keeps expiry from deleting it.
 *
 * Rows come in the order of the table's columns with `added` around them (`rowkind` for
 * `$audit_log` and `read.changelog`; Spark's change columns for its changelog API). Without added
 * columns retractions are left out, as in batch reads of changes.
 */
final class PaimonMicroBatchStream(table: FileStoreTable, options: Map[String, String], added: ChangeColumns)
    extends MicroBatchStream with SupportsTriggerAvailableNow {

  private def option(key: String): Option[String] = options.get(key).orElse(options.find(_._1.equalsIgnoreCase(key)).map(_._2))
  private val readOverwrite = option(StreamPlanner.ReadOverwriteKey).exists(_.trim.toBoolean)
  private val planner = new StreamPlanner(table, readOverwrite)
  private val consumerId = option(PaimonMicroBatchStream.ConsumerIdKey).map(_.trim).filter(_.nonEmpty)
  private val outputSchema = ChangeScanBuilder.schema(table, added)
  private var availableNowEnd: Option[StreamPosition] = None
  private var lastCommitted: Option[StreamPosition] = None

  private def positive(key: String): Option[Long] = option(key).map { v =>
    v.trim.toLongOption.filter(_ > 0).getOrElse(throw new InvalidOptionException(key,
      s"table ${table.name}: read option '$key' must be a positive number, not '$v'"))
  }

  override def initialOffset(): Offset = PaimonOffset(
    consumerId.flatMap(id => table.consumerManager.list().find(_._1 == id)).map { case (_, next) =>
      StreamPosition(math.max(next, table.earliestChangesId.getOrElse(next)), full = false, 0)
    }.getOrElse(planner.start(option, SparkTable.zone)))

  override def deserializeOffset(json: String): Offset = PaimonOffset.parse(json)

  override def getDefaultReadLimit: ReadLimit = {
    import PaimonMicroBatchStream._
    val limits = Seq(
      positive(MaxFilesKey).map(n => ReadLimit.maxFiles(n.toInt)),
      positive(MaxRowsKey).map(ReadLimit.maxRows),
      positive(MaxBytesKey).map(ReadLimit.maxBytes),
      positive(MinRowsKey).map(n => ReadLimit.minRows(n, positive(MaxTriggerDelayKey).getOrElse(Long.MaxValue)))).flatten
    limits match {
      case Seq() => ReadLimit.allAvailable()
      case Seq(one) => one
      case many => ReadLimit.compositeLimit(many.toArray)
    }
  }

  override def latestOffset(): Offset = throw new UnsupportedOperationException("latestOffset(start, limit) is used")

  override def prepareForTriggerAvailableNow(): Unit = {
    // Everything committed now, and nothing after: the end is the position after the latest snapshot.
    val start = lastCommitted.getOrElse(initialOffset().asInstanceOf[PaimonOffset].position)
    availableNowEnd = Some(advance(start, ReadLimit.allAvailable()))
  }

  /**
   * Spark asks from the end of the last batch it committed (or the initial offset): everything
   * before `start` has been processed, so a consumer moves on to it here too. `commit` alone would
   * miss the last batch of a Trigger.AvailableNow run, which Spark never commits to the source.
   */
  override def latestOffset(startOffset: Offset, limit: ReadLimit): Offset = {
    val start = startOffset.asInstanceOf[PaimonOffset].position
    recordConsumer(start)
    PaimonOffset(advance(start, limit))
  }

  private var recorded: Option[Long] = None

  private def recordConsumer(position: StreamPosition): Unit = consumerId.foreach { id =>
    if (!recorded.contains(position.nextSnapshot)) {
      table.consumerManager.record(id, position.nextSnapshot)
      recorded = Some(position.nextSnapshot)
    }
  }

  /**
   * The position after as many pieces from `start` as `limit` admits (at least one when there are
   * any), never beyond the Trigger.AvailableNow end. A minimum of rows not yet reached admits none,
   * unless the stream has waited its maximum delay.
   */
  private def advance(start: StreamPosition, limit: ReadLimit): StreamPosition = {
    val limits = limit match {
      case c: CompositeReadLimit => c.getReadLimits.toSeq
      case one => Seq(one)
    }
    val maxFiles = limits.collectFirst { case m: ReadMaxFiles => m.maxFiles().toLong }.getOrElse(Long.MaxValue)
    val maxRows = limits.collectFirst { case m: ReadMaxRows => m.maxRows() }.getOrElse(Long.MaxValue)
    val maxBytes = limits.collectFirst { case m: ReadMaxBytes => m.maxBytes() }.getOrElse(Long.MaxValue)
    val minRows = limits.collectFirst { case m: ReadMinRows => m }
    var (files, rows, bytes, taken) = (0L, 0L, 0L, 0)
    var position = start
    var done = false
    while (!done && availableNowEnd.forall(position < _)) {
      planner.pieces(position) match {
        case None => done = true
        case Some(pieces) if position.index >= pieces.size =>
          position = StreamPosition(position.snapshotId + 1, full = false, 0)
        case Some(pieces) =>
          val p = pieces(position.index)
          val over = taken > 0 && (files + p.files > maxFiles || rows + p.rows > maxRows || bytes + p.bytes > maxBytes)
          if (over) done = true
          else {
            files += p.files; rows += p.rows; bytes += p.bytes; taken += 1
            position = position.copy(index = position.index + 1)
          }
      }
    }
    val waited = minRows.forall(m => rows >= m.minRows() ||
      System.currentTimeMillis() - lastTrigger >= m.maxTriggerDelayMs())
    if (position != start && waited) { lastTrigger = System.currentTimeMillis(); position } else start
  }

  private var lastTrigger = System.currentTimeMillis()

  /** The pieces between two positions, in order. */
  private def piecesBetween(start: StreamPosition, end: StreamPosition): Seq[StreamPiece] = {
    val out = Seq.newBuilder[StreamPiece]
    var position = start
    while (position < end) {
      val pieces = planner.pieces(position).getOrElse(Nil)
      if (position.index >= pieces.size) position = StreamPosition(position.snapshotId + 1, full = false, 0)
      else {
        val last = if (position.snapshotId == end.snapshotId && position.full == end.full) end.index else pieces.size
        out ++= pieces.slice(position.index, last)
        position = position.copy(index = last)
      }
    }
    out.result()
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val pieces = piecesBetween(start.asInstanceOf[PaimonOffset].position, end.asInstanceOf[PaimonOffset].position)
    val (full, changes) = pieces.partition(_.full)
    val (overwrites, changed) = changes.partition(_.removed.isDefined)
    val overwritten = DiffSplit.packed(table, overwrites.map(p => BucketDiffFiles.of(table, p.split.partitionBytes,
      p.split.bucket, p.removed.get, p.split.files, p.snapshot.id, p.snapshot.timeMillis * 1000L)))
    val changeFiles = ChangeSplit.packed(table, changed.map { p =>
      val f = p.split.files.head
      ChangeFile(table.dataFilePath(p.split.partitionBytes, p.split.bucket, f).toString, f.fileSize, f.schemaId,
        p.split.partition, p.snapshot.id, p.snapshot.timeMillis * 1000L)
    })
    // A full read's buckets are read by the batch scan of their snapshot, limited to them.
    val snapshotParts = full.groupBy(_.snapshot.id).toSeq.sortBy(_._1).flatMap { case (_, ps) =>
      val snapshot = ps.head.snapshot
      val at = table.pinnedTo(snapshot)
      val buckets = Some(ps.map(p => PrimaryKeyWriter.sequenceKey(p.split.partitionBytes, p.split.bucket)).toSet)
      val columns = SparkSchemas.sparkSchema(at.schema)
      val files = ps.flatMap(_.split.files.map(_.fileName)).toSet
      // Files read as they are (with their deletion vectors), or merged by key.
      val scan = if (at.isPrimaryKeyTable && !at.options.deletionVectors) new PrimaryKeyScan(at, columns, Nil, None,
          buckets = buckets, fileFilter = f => files(f.fileName))
        else new PaimonScan(at, columns, Nil, None, f => files(f.fileName), buckets)
      val factory = scan.createReaderFactory()
      scan.planInputPartitions().map(p => SnapshotPart(p, factory, scan.readSchema(), snapshot.id,
        snapshot.timeMillis * 1000L): InputPartition)
    }
    (snapshotParts ++ changeFiles ++ overwritten).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = new StreamReaderFactory(table, outputSchema, added, readOverwrite)

  override def commit(end: Offset): Unit = {
    val position = end.asInstanceOf[PaimonOffset].position
    lastCommitted = Some(position)
    recordConsumer(position)
  }

  override def stop(): Unit = ()
}

object PaimonMicroBatchStream {
  val ConsumerIdKey = "consumer-id"
  val MaxFilesKey = "read.stream.maxFilesPerTrigger"
  val MaxRowsKey = "read.stream.maxRowsPerTrigger"
  val MaxBytesKey = "read.stream.maxBytesPerTrigger"
  val MinRowsKey = "read.stream.minRowsPerTrigger"
  val MaxTriggerDelayKey = "read.stream.maxTriggerDelayMs"
}
