package paimonspark.table.changes

import java.nio.ByteBuffer
import java.time.{Instant, ZoneId}

import paimonspark.{InvalidOptionException, SchemaMismatchException, SnapshotNotFoundException, UnsupportedFeatureException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{CommitKind, DataFileMeta, FileKind, Snapshot}
import paimonspark.table.{FileStoreTable, TableOptions}
import paimonspark.table.options.ChangelogProducer
import paimonspark.table.scan.{DataSplit, ScanMode, ScanPlanner, TimeTravel}

/**
 * Where a stream of a table stands: the next piece to read is piece `index` of snapshot
 * `snapshotId`, of its whole state when `full` (a stream's first read), else of its changes.
 */
final case class StreamPosition(snapshotId: Long, full: Boolean, index: Int) extends Ordered[StreamPosition] {
  override def compare(that: StreamPosition): Int =
    Ordering[(Long, Int, Int)].compare((snapshotId, if (full) 0 else 1, index),
      (that.snapshotId, if (that.full) 0 else 1, that.index))

  /**
   * The snapshot a consumer resumes from: this one, even when all its pieces were read (the next
   * position names the next snapshot only once a trigger has looked at it).
   */
  def nextSnapshot: Long = snapshotId
}

/**
 * A piece a stream reads whole: one bucket's files of a full read, one file of a commit's changes,
 * or one bucket of an overwrite of a primary-key table, whose changes are the difference between the
 * files it `removed` and those it added. Admission control counts these; a trigger takes at least
 * one, so a stream always moves.
 */
final case class StreamPiece(snapshot: Snapshot, split: DataSplit, full: Boolean,
    removed: Option[Seq[DataFileMeta]] = None) {
  private def all = split.files ++ removed.getOrElse(Nil)
  def rows: Long = all.map(_.rowCount).sum
  def bytes: Long = all.map(_.fileSize).sum
  def files: Int = all.size
}

/**
 * The pieces of each snapshot a stream of a table reads, as Paimon's streaming scans pick them:
 * the changelog files of every snapshot that has some when the table has a changelog producer,
 * else the new data files of APPEND snapshots (compactions carry no new rows; overwrites are read
 * only with `streaming-read-overwrite`, as their new files). Pieces are ordered the same way on
 * every call, so a position names the same piece before and after a restart.
 */
final class StreamPlanner(table: FileStoreTable, readOverwrite: Boolean) {
  private val snapshots = table.snapshotManager
  private val mode = ChangeScanMode.resolve(table, ChangeScanMode.Auto)
  if (readOverwrite && Set(ChangelogProducer.Lookup, ChangelogProducer.FullCompaction)(table.options.changelogProducer)) {
    throw new InvalidOptionException(StreamPlanner.ReadOverwriteKey, s"table ${table.name}: " +
      s"'${StreamPlanner.ReadOverwriteKey}' cannot be used with changelog-producer ${table.options.changelogProducer}, " +
      "whose changelog already holds what an overwrite changes; it would read those changes twice")
  }
  // A postpone-bucket table's rows reach real buckets only in compactions, which a stream reads
  // only as the changelog a lookup or full-compaction producer writes there.
  if (table.options.bucket == TablePaths.PostponeBucket &&
      !Set(ChangelogProducer.Lookup, ChangelogProducer.FullCompaction)(table.options.changelogProducer)) {
    throw new UnsupportedFeatureException(s"table ${table.name}: a postpone-bucket table (bucket = -2) is streamed " +
      s"with changelog-producer 'lookup' or 'full-compaction' only, not '${table.options.changelogProducer}': its rows " +
      "become readable in compactions, which a stream reads only as the changelog those write", TableOptions.Bucket)
  }

  // Admission control walks a snapshot piece by piece: its pieces are planned once. Snapshots never
  // change, so the last one planned stays right while it is retained (once expired, planning it
  // again says so).
  private var last: Option[((Long, Boolean), Seq[StreamPiece])] = None

  // Schemas found to fit the stream's columns: each is read and checked once.
  private val checkedSchemas = scala.collection.mutable.Set(table.schema.id)

  /** The pieces of a position's snapshot, or None when it has not been committed yet. */
  def pieces(position: StreamPosition): Option[Seq[StreamPiece]] = {
    val key = (position.snapshotId, position.full)
    last.filter(l => l._1 == key && (snapshots.snapshotExists(position.snapshotId) ||
      table.changelogManager.snapshotExists(position.snapshotId))).map(_._2).orElse {
      val planned = plan(position)
      planned.foreach(p => last = Some(key -> p))
      planned
    }
  }

  // A full read needs the snapshot; changes may come from a long-lived changelog. The latest id is read
  // first: a snapshot committed before it and missing after has expired, one committed in between is read.
  private def plan(position: StreamPosition): Option[Seq[StreamPiece]] = {
    val committed = snapshots.latestId().exists(_ >= position.snapshotId)
    (if (position.full) snapshots.readIfExists(position.snapshotId) else table.commitChanges(position.snapshotId))
      .map(checkSchema) match {
      case None => if (committed) throw expired(position.snapshotId) else None
      case Some(s) if position.full =>
        // Files a compaction has not yet turned into changelog are read from there instead: level 0 of
        // a lookup table, everything below the top level of a full-compaction one. A primary-key table
        // with deletion vectors shows level 0 only once compacted, as its batch reads do.
        val top = table.options.numLevels - 1
        val vectors = table.options.deletionVectors
        val settled = (split: DataSplit) => table.options.changelogProducer match {
          case _ if vectors && table.isPrimaryKeyTable => split.copy(files = split.files.filter(_.level > 0))
          case ChangelogProducer.Lookup => split.copy(files = split.files.filter(_.level > 0))
          case ChangelogProducer.FullCompaction => split.copy(files = split.files.filter(_.level == top))
          case _ => split
        }
        Some(ordered(new ScanPlanner(table, appliesDeletionVectors = vectors).plan(Some(s), None)).map(settled)
          .filter(_.files.nonEmpty)
          .map(StreamPiece(s, _, full = true)))
      case Some(s) if readOverwrite && s.commitKind == CommitKind.Overwrite && table.isPrimaryKeyTable =>
        // As in Paimon, an overwrite's changes are what it removed against what it added, per bucket;
        // compared by key, so a key the overwrite kept unchanged is no change.
        val scan = new ScanPlanner(table)
        def byBucket(kind: Int) = scan.planDelta(s.deltaManifestList, kind, None)
          .map(split => (ByteBuffer.wrap(split.partitionBytes), split.bucket) -> split).toMap
        val (added, removed) = (byBucket(FileKind.Add), byBucket(FileKind.Delete))
        Some(ordered((added.keySet ++ removed.keySet).toSeq.map(k => added.getOrElse(k, removed(k).copy(files = Nil))))
          .map(split => StreamPiece(s, split, full = false, removed = Some(removed.get(
            (ByteBuffer.wrap(split.partitionBytes), split.bucket)).toSeq.flatMap(_.files)))))
      case Some(s) =>
        val list = if (readOverwrite && s.commitKind == CommitKind.Overwrite) Some(s.deltaManifestList)
          else CommitChanges.list(s, mode, streamed = true)
        Some(list.toSeq.flatMap(l => ordered(new ScanPlanner(table).planAdded(l, None)))
          .flatMap(split => split.files.map(f => StreamPiece(s, split.copy(files = Seq(f)), full = false))))
    }
  }

  /**
   * A stream's columns are fixed when it starts: every snapshot it reads must have written each of
   * them under the same field id, name and type. A newer schema may add columns (not read); an
   * older one may lack a column added since (read as null). Renamed, dropped or retyped columns
   * stop the stream rather than read the wrong data.
   */
  private def checkSchema(s: Snapshot): Snapshot = {
    if (!checkedSchemas(s.schemaId)) {
      val written = table.schemaManager.read(s.schemaId).fields.map(f => f.id -> f).toMap
      table.schema.fields.foreach { f =>
        val problem = written.get(f.id) match {
          case Some(w) if w.name != f.name => Some(s"names it '${w.name}'")
          case Some(w) if w.dataType.withNullable(true) != f.dataType.withNullable(true) =>
            Some(s"wrote it as ${w.dataType.sql}, not ${f.dataType.sql}")
          case None if s.schemaId > table.schema.id => Some("dropped it")
          case _ => None
        }
        problem.foreach { p =>
          throw new SchemaMismatchException(f.name, s"table ${table.name}: snapshot ${s.id}, written with schema ${s.schemaId}, " +
            s"$p; this stream reads column '${f.name}' as schema ${table.schema.id} defines it. Start a new query " +
            "(another checkpoint) to read the table as it is now")
        }
      }
      checkedSchemas += s.schemaId
    }
    s
  }

  private def ordered(splits: Seq[DataSplit]): Seq[DataSplit] =
    splits.sortBy(s => (s.bucket, java.util.Base64.getEncoder.encodeToString(s.partitionBytes)))

  private def expired(id: Long): SnapshotNotFoundException =
    new SnapshotNotFoundException(snapshot = id.toString, message = s"table ${table.name}: snapshot $id, the next one this stream reads, has expired " +
      s"(the earliest retained snapshot is ${table.earliestChangesId.getOrElse("none")}); keep snapshots longer " +
      "(snapshot.time-retained, snapshot.num-retained.min), or their changes (changelog.time-retained, " +
      "changelog.num-retained.min), or give the stream a consumer-id, which keeps what it has not read")

  /**
   * Where a new stream starts, by Paimon's `scan.mode` (default `latest-full`): the current state
   * and then its changes, only changes from now on, or from a snapshot (by id, tag or version) or a
   * time (`scan.timestamp-millis`, or `scan.timestamp` in `zone`).
   */
  def start(options: String => Option[String], zone: ZoneId): StreamPosition = {
    val latest = snapshots.latestId()
    def from(id: Long, full: Boolean): StreamPosition = {
      val earliest = (if (full) snapshots.earliestId() else table.earliestChangesId).getOrElse(id)
      if (id < earliest) throw expired(id)
      StreamPosition(id, full, 0)
    }
    lazy val point = TimeTravel.fromOptions(options, zone)
    val mode = ScanMode.of(options)
    mode match {
      case ScanMode.LatestFull => latest.fold(StreamPosition(1, full = false, 0))(StreamPosition(_, full = true, 0))
      case ScanMode.Latest => StreamPosition(latest.getOrElse(0L) + 1, full = false, 0)
      case ScanMode.FromSnapshot | ScanMode.FromSnapshotFull => point match {
        case Some(TimeTravel.SnapshotId(id)) => from(id, full = mode == ScanMode.FromSnapshotFull)
        case Some(p) => from(TimeTravel.resolve(table, p).id, full = false)
        case None => throw new IllegalStateException("ScanMode checked that a start snapshot is given")
      }
      case ScanMode.FromTimestamp =>
        val millis = point match {
          case Some(TimeTravel.AtMillis(ms)) => ms
          case other => throw new IllegalStateException(s"ScanMode checked that a start time is given, not $other")
        }
        snapshots.latestAtOrBefore(millis) match {
          case Some(s) => StreamPosition(s.id + 1, full = false, 0)
          case None => snapshots.earliestId().filter(id => snapshots.read(id).timeMillis >= millis)
            .map(StreamPosition(_, full = false, 0)).getOrElse(
              if (latest.isEmpty) StreamPosition(1, full = false, 0)
              else throw new SnapshotNotFoundException(snapshot = Instant.ofEpochMilli(millis).toString, message = s"table ${table.name}: no retained snapshot tells what " +
                s"changed after ${Instant.ofEpochMilli(millis)}; the earliest retained is newer than that"))
        }
      case ScanMode.CompactedFull =>
        TimeTravel.latestCompacted(table).map(s => StreamPosition(s.id, full = true, 0))
          .getOrElse(latest.fold(StreamPosition(1, full = false, 0))(StreamPosition(_, full = true, 0)))
      case _ => throw new InvalidOptionException(ScanMode.Key, s"table ${table.name}: a stream cannot start with " +
        s"'${ScanMode.Key}' = $mode; use ${Seq(ScanMode.LatestFull, ScanMode.Latest, ScanMode.CompactedFull,
          ScanMode.FromTimestamp, ScanMode.FromSnapshot, ScanMode.FromSnapshotFull).mkString(", ")}")
    }
  }
}

object StreamPlanner {
  val ReadOverwriteKey = "streaming-read-overwrite"
}
