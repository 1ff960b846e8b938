package paimonspark.table.changes

import java.time.{Instant, ZoneId}

import paimonspark.{InvalidOptionException, SnapshotNotFoundException}
import paimonspark.format.metadata.{CommitKind, Snapshot}
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.AutoTagPeriods
import paimonspark.table.options.ChangelogProducer
import paimonspark.table.scan.{DataSplit, ScanMode, ScanPlanner, TimeTravel}

/**
 * The commits of one branch after snapshot `startExclusive`, up to and including `endInclusive`,
 * as Paimon's `incremental-between` names them. Equal ids name no commit at all.
 */
final case class ChangeRange(startExclusive: Long, endInclusive: Long) {
  def ids: Seq[Long] = (startExclusive + 1) to endInclusive
}

object ChangeRange {
  val BetweenKey: String = ScanMode.IncrementalBetweenKey
  val BetweenTimestampKey: String = ScanMode.IncrementalBetweenTimestampKey
  val ScanModeKey = "incremental-between-scan-mode"
  /** A range from the automatic tag before the named one to it, read as their diff. */
  val ToAutoTagKey = "incremental-to-auto-tag"
  val Keys: Seq[String] = Seq(BetweenKey, BetweenTimestampKey, ToAutoTagKey)

  /** `incremental-between` with two tags reads the commits between their snapshots instead of their diff. */
  val TagToSnapshotKey = "incremental-between-tag-to-snapshot"

  /** What the read options ask for, if they name a range of changes. */
  def fromOptions(table: FileStoreTable, options: String => Option[String], zone: ZoneId): Option[ChangeRead] = {
    val named = Keys.flatMap(k => options(k).map(k -> _))
    if (named.size > 1) {
      throw new InvalidOptionException(named(1)._1, s"read options ${named.map(_._1).mkString(" and ")} both name a " +
        "range of changes; give one")
    }
    val mode = options(ScanModeKey).map(_.trim.toLowerCase).getOrElse(ChangeScanMode.Auto)
    if (!ChangeScanMode.All.contains(mode)) {
      throw new InvalidOptionException(ScanModeKey, s"read option '$ScanModeKey' must be one of " +
        s"${ChangeScanMode.All.toSeq.sorted.mkString(", ")}, not '$mode'")
    }
    val tagToSnapshot = options(TagToSnapshotKey).map(_.trim.toLowerCase) match {
      case None | Some("false") => false
      case Some("true") => true
      case Some(other) => throw new InvalidOptionException(TagToSnapshotKey, s"read option '$TagToSnapshotKey' must be " +
        s"true or false, not '$other'")
    }
    named.headOption.map {
      case (BetweenKey, v) =>
        val (a, b) = pair(BetweenKey, v)
        val tags = for (s <- table.tagManager.readIfExists(a); e <- table.tagManager.readIfExists(b)) yield (s, e)
        tags match {
          // As in Paimon: two tags are compared as states, whatever the scan mode, unless told otherwise.
          case Some((s, e)) if !tagToSnapshot =>
            if (s.snapshot.id > e.snapshot.id) throw backwards(table, s"'$v'", s.snapshot.id, e.snapshot.id)
            ChangeRead.Diff(Some(s.snapshot), Some(e.snapshot))
          case _ =>
            val range = checked(table, snapshotId(table, a), snapshotId(table, b), s"'$v'")
            if (mode == ChangeScanMode.Diff) diff(table, range) else ChangeRead.Commits(range, mode)
        }
      case (ToAutoTagKey, v) => toAutoTag(table, v.trim)
      case (_, v) =>
        val range = betweenTimestamps(table, v, zone)
        if (mode == ChangeScanMode.Diff) diff(table, range) else ChangeRead.Commits(range, mode)
    }
  }

  /**
   * As Paimon's `incremental-to-auto-tag`: the diff from the automatic tag of the period before to
   * `name`, which must be an automatic tag's name under the table's `tag.creation-period` and
   * `tag.period-formatter`; nothing when either tag is missing.
   */
  private def toAutoTag(table: FileStoreTable, name: String): ChangeRead.Diff = {
    val periods = AutoTagPeriods(table.options.tagCreationPeriod, table.options.tagPeriodFormatter)
    val period = periods.parse(name).getOrElse(throw new InvalidOptionException(ToAutoTagKey, s"table ${table.name}: " +
      s"read option '$ToAutoTagKey': '$name' is not the name of an automatic tag (tag.creation-period " +
      s"'${table.options.tagCreationPeriod}', tag.period-formatter '${table.options.tagPeriodFormatter}')"))
    val tags = table.tagManager
    val before = tags.list().flatMap { case (n, t) => periods.parse(n).filter(_.isBefore(period)).map(_ -> t) }.maxByOption(_._1)
    (before, tags.readIfExists(name)) match {
      case (Some((_, start)), Some(end)) => ChangeRead.Diff(Some(start.snapshot), Some(end.snapshot))
      case _ => ChangeRead.Diff(None, None)
    }
  }

  /** The states at a range's two ends; before the first snapshot the table is empty. */
  private def diff(table: FileStoreTable, range: ChangeRange): ChangeRead.Diff = {
    val snapshots = table.snapshotManager
    def state(id: Long) = if (id <= 0) None else Some(snapshots.readIfExists(id).getOrElse(
      throw new SnapshotNotFoundException(snapshot = id.toString, message = s"table ${table.name}: snapshot $id, " +
        s"the start of the diff, has expired; the earliest retained snapshot is " +
        s"${snapshots.earliestId().getOrElse("none")}")))
    if (range.startExclusive == range.endInclusive) ChangeRead.Diff(None, None)
    else ChangeRead.Diff(state(range.startExclusive), state(range.endInclusive))
  }

  private def backwards(table: FileStoreTable, what: String, start: Long, end: Long) =
    new InvalidOptionException(BetweenKey, s"table ${table.name}: the range of changes $what starts at snapshot " +
      s"$start, after its end $end")

  private def pair(key: String, text: String): (String, String) = text.split(",", -1).map(_.trim) match {
    case Array(a, b) if a.nonEmpty && b.nonEmpty => (a, b)
    case _ => throw new InvalidOptionException(key, s"read option '$key' must be two values separated by a comma " +
      s"(start exclusive, end inclusive), not '$text'")
  }

  /**
   * The snapshot id a bound of a range names: a tag's snapshot, else the id itself, which need not
   * be retained ([[checked]] says what is).
   */
  def snapshotId(table: FileStoreTable, version: String): Long = table.tagManager.readIfExists(version)
    .map(_.snapshot.id).orElse(version.trim.toLongOption).getOrElse(throw table.tagManager.notFound(version))

  /**
   * `incremental-between-timestamp` = 't1,t2' (epoch milliseconds or local date-times): from the
   * snapshot at or before t1 (exclusive) to the one at or before t2.
   */
  def betweenTimestamps(table: FileStoreTable, text: String, zone: ZoneId): ChangeRange = {
    val (a, b) = pair(BetweenTimestampKey, text)
    def millis(v: String) = v.toLongOption.getOrElse(TimeTravel.parseTimestamp(s"read option '$BetweenTimestampKey'", v, zone))
    val (from, to) = (millis(a), millis(b))
    if (from > to) {
      throw new InvalidOptionException(BetweenTimestampKey, s"table ${table.name}: read option '$BetweenTimestampKey' " +
        s"starts at ${Instant.ofEpochMilli(from)}, after its end ${Instant.ofEpochMilli(to)}")
    }
    atTimes(table, from, to)
  }

  /** The commits made after `fromMillis` up to `toMillis`, among the retained snapshots. */
  def atTimes(table: FileStoreTable, fromMillis: Long, toMillis: Long): ChangeRange = {
    val snapshots = table.snapshotManager
    val earliest = snapshots.earliestId().getOrElse(0L)
    def at(ms: Long) = snapshots.latestAtOrBefore(ms).map(_.id).getOrElse(earliest - 1)
    val start = at(fromMillis)
    ChangeRange(start, math.max(start, at(toMillis)))
  }

  /** A range between two snapshot ids, which must be in order and within the retained history. */
  def checked(table: FileStoreTable, start: Long, end: Long, what: String): ChangeRange = {
    if (start > end) throw backwards(table, what, start, end)
    // Changes outlive their snapshots as long-lived changelogs (decoupled lifecycle).
    val (earliest, latest) = (table.earliestChangesId, table.snapshotManager.latestId())
    val available = (earliest, latest) match {
      case (Some(e), Some(l)) => s"changes can be read after snapshot ${e - 1} up to $l (the earliest retained " +
        s"snapshot is $e)"
      case _ => "it has no snapshots"
    }
    val inRange = for (e <- earliest; l <- latest) yield start >= e - 1 && end <= l
    if (start < end && !inRange.getOrElse(false)) {
      val outside = if (earliest.exists(e => start < e - 1)) start else end
      throw new SnapshotNotFoundException(snapshot = outside.toString, message = s"table ${table.name}: the range " +
        s"of changes $what (after snapshot $start, up to $end) is not in the retained history: $available")
    }
    ChangeRange(start, end)
  }
}

/** What a read of changes reads: the changes of a range's commits, or the diff of two states. */
sealed trait ChangeRead

object ChangeRead {
  /** The changes of each commit of `range`, from the files `mode` names. */
  final case class Commits(range: ChangeRange, mode: String) extends ChangeRead
  /** The rows that differ between two states (None: empty). */
  final case class Diff(start: Option[Snapshot], end: Option[Snapshot]) extends ChangeRead
}

/** `incremental-between-scan-mode`: which files hold a range's changes. */
object ChangeScanMode {
  /** Changelog files when the table has a producer, else the new data files of each commit. */
  val Auto = "auto"
  /** The new data files of each APPEND commit (compactions and overwrites carry no new rows). */
  val Delta = "delta"
  /** The changelog files of each commit but overwrites. */
  val Changelog = "changelog"
  /** The difference between the range's first and last state. */
  val Diff = "diff"
  val All: Set[String] = Set(Auto, Delta, Changelog, Diff)

  /** What `auto` means for a table. */
  def resolve(table: FileStoreTable, mode: String): String =
    if (mode != Auto) mode
    else if (table.options.changelogProducer == ChangelogProducer.None) Delta
    else Changelog
}

/** The files one commit contributes to a range of changes, per (partition, bucket). */
final case class CommitChanges(snapshot: Snapshot, splits: Seq[DataSplit])

object CommitChanges {
  /**
   * The commits of `range` that carry changes in `mode` (delta or changelog), with their files.
   * A snapshot of the range that expired meanwhile is an error naming the earliest retained one.
   */
  def plan(table: FileStoreTable, range: ChangeRange, mode: String, filter: Option[Predicate]): Seq[CommitChanges] = {
    val planner = new ScanPlanner(table)
    range.ids.flatMap { id =>
      val s = table.commitChanges(id).getOrElse(throw new SnapshotNotFoundException(snapshot = id.toString, message =
        s"table ${table.name}: snapshot $id of the range of changes expired while it was read; the earliest retained " +
          s"snapshot is ${table.earliestChangesId.getOrElse("none")}"))
      list(s, mode).map(l => CommitChanges(s, planner.planAdded(l, filter)))
    }
  }

  /**
   * The manifest list a snapshot's changes are read from in `mode`, if it has changes in that mode.
   * As Paimon's scans pick them: a batch read of a range skips an overwrite's changelog, a stream
   * (`streamed`) reads the changelog of every snapshot that has one.
   */
  def list(s: Snapshot, mode: String, streamed: Boolean = false): Option[String] = mode match {
    case ChangeScanMode.Delta => Some(s.deltaManifestList).filter(_ => s.commitKind == CommitKind.Append)
    case ChangeScanMode.Changelog => s.changelogManifestList.filter(_ => streamed || s.commitKind != CommitKind.Overwrite)
    case other => throw new IllegalArgumentException(s"changes are read from delta or changelog files, not '$other'")
  }
}
