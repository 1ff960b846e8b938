package paimonspark.table.scan

import java.time.{Instant, LocalDateTime, ZoneId}
import java.time.format.DateTimeFormatter

import scala.util.Try

import paimonspark.{InvalidOptionException, SnapshotNotFoundException}
import paimonspark.format.metadata.{CommitKind, Snapshot}
import paimonspark.table.FileStoreTable

/** A point of a table's history to read, as Paimon's `scan.*` options and SQL's `AS OF` name one. */
sealed trait TimeTravel

object TimeTravel {
  final case class SnapshotId(id: Long) extends TimeTravel
  final case class TagName(name: String) extends TimeTravel
  final case class AtMillis(millis: Long) extends TimeTravel
  /** `VERSION AS OF` and `scan.version`: a tag of that name if there is one, else a snapshot id. */
  final case class Version(version: String) extends TimeTravel
  /** `scan.mode` = `compacted-full`: the latest COMPACT snapshot, else the latest (Paimon's `pickOrLatest`). */
  case object LatestCompacted extends TimeTravel

  val SnapshotIdKey = "scan.snapshot-id"
  val TagNameKey = "scan.tag-name"
  val TimestampMillisKey = "scan.timestamp-millis"
  val TimestampKey = "scan.timestamp"
  val VersionKey = "scan.version"
  /** Spark's and Delta's names, which Spark itself only reads for catalog tables. */
  val VersionAsOfKey = "versionAsOf"
  val TimestampAsOfKey = "timestampAsOf"
  val Keys: Seq[String] =
    Seq(SnapshotIdKey, TagNameKey, TimestampMillisKey, TimestampKey, VersionKey, VersionAsOfKey, TimestampAsOfKey)

  /**
   * The point the read options name, if any. `scan.timestamp` is a local date-time
   * (`yyyy-MM-dd HH:mm:ss[.SSS]`) in `zone`. Naming more than one point is an error.
   */
  def fromOptions(options: String => Option[String], zone: ZoneId): Option[TimeTravel] = {
    if (ScanMode.of(options) == ScanMode.CompactedFull) return Some(LatestCompacted)
    val named = Keys.flatMap(k => options(k).map(k -> _.trim))
    if (named.size > 1) {
      throw new InvalidOptionException(named(1)._1,
        s"read options ${named.map(_._1).mkString(" and ")} both name a point in history; give one")
    }
    named.headOption.map {
      case (SnapshotIdKey, v) => SnapshotId(v.toLongOption.filter(_ > 0).getOrElse(
        throw new InvalidOptionException(SnapshotIdKey, s"read option '$SnapshotIdKey' must be a positive snapshot id, not '$v'")))
      case (TagNameKey, v) => TagName(v)
      case (TimestampMillisKey, v) => AtMillis(v.toLongOption.getOrElse(
        throw new InvalidOptionException(TimestampMillisKey, s"read option '$TimestampMillisKey' must be epoch milliseconds, not '$v'")))
      case (k @ (TimestampKey | TimestampAsOfKey), v) => AtMillis(parseTimestamp(k, v, zone))
      case (_, v) => Version(v)
    }
  }

  private val LocalFormats = Seq("yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd")
    .map(DateTimeFormatter.ofPattern)

  /** Epoch milliseconds of a local date-time in `zone`, or of epoch seconds / an ISO instant. */
  def parseTimestamp(what: String, text: String, zone: ZoneId): Long = {
    val t = text.trim
    t.toLongOption.map(_ * 1000L)
      .orElse(LocalFormats.iterator.map(f => Try(parseLocal(t, f).atZone(zone).toInstant.toEpochMilli).toOption)
        .collectFirst { case Some(ms) => ms })
      .orElse(Try(Instant.parse(t).toEpochMilli).toOption)
      .getOrElse(throw new InvalidOptionException(what,
        s"$what must be a timestamp such as '2026-11-23 10:00:00' or epoch seconds, not '$text'"))
  }

  private def parseLocal(t: String, f: DateTimeFormatter): LocalDateTime =
    if (t.length == 10) java.time.LocalDate.parse(t, f).atStartOfDay() else LocalDateTime.parse(t, f)

  /** The snapshot a point names, or a [[paimonspark.VersionNotFoundException]] saying what the history holds. */
  def resolve(table: FileStoreTable, point: TimeTravel): Snapshot = {
    val snapshots = table.snapshotManager
    val tags = table.tagManager
    point match {
      case SnapshotId(id) => snapshots.readIfExists(id).orElse(tags.snapshotOf(id))
        .getOrElse(throw missingSnapshot(table, id.toString, s"snapshot $id"))
      case TagName(name) => tags.read(name).snapshot
      case Version(v) => tags.readIfExists(v).map(_.snapshot).getOrElse(v.toLongOption match {
        case Some(id) => resolve(table, SnapshotId(id))
        case None => throw tags.notFound(v)
      })
      case LatestCompacted => latestCompacted(table).orElse(snapshots.latest())
        .getOrElse(throw missingSnapshot(table, ScanMode.CompactedFull, "snapshot"))
      case AtMillis(ms) => snapshots.latestAtOrBefore(ms).getOrElse {
        val when = Instant.ofEpochMilli(ms)
        val first = snapshots.earliestId().flatMap(snapshots.readIfExists)
        throw missingSnapshot(table, when.toString, s"snapshot committed at or before $when" +
          first.map(s => s" (the earliest retained, ${s.id}, was committed at ${Instant.ofEpochMilli(s.timeMillis)})").getOrElse(""))
      }
    }
  }

  /** `table` as of a point of its history (the latest compaction of an empty table is the table). */
  def travel(table: FileStoreTable, point: TimeTravel): FileStoreTable =
    if (point == LatestCompacted && table.snapshotManager.latestId().isEmpty) table
    else table.pinnedTo(resolve(table, point))

  /** The latest snapshot a compaction committed, among those retained. */
  def latestCompacted(table: FileStoreTable): Option[Snapshot] = {
    val snapshots = table.snapshotManager
    snapshots.latestId().toSeq.flatMap(l => (l to snapshots.earliestId().getOrElse(l) by -1).iterator
      .flatMap(snapshots.readIfExists).find(_.commitKind == CommitKind.Compact)).headOption
  }

  private def missingSnapshot(table: FileStoreTable, point: String, what: String): SnapshotNotFoundException = {
    val held = (table.snapshotManager.earliestId(), table.snapshotManager.latestId()) match {
      case (Some(first), Some(last)) => s"it holds snapshots $first to $last"
      case _ => "it has no snapshots"
    }
    val tags = table.tagManager.list().map(_._1)
    new SnapshotNotFoundException(snapshot = point, message = s"table ${table.name}: there is no $what; $held" +
      (if (tags.isEmpty) "" else s", and tags ${tags.mkString(", ")}"))
  }
}
