package paimonspark.table.scan

import paimonspark.InvalidOptionException
import paimonspark.table.options.OptionKind

/**
 * Paimon's `scan.mode`: where a read starts. `default` names the mode its start options imply, and
 * each mode needs some start options and excludes the others, checked as Paimon's schema
 * validation checks them, so that no start option is silently left unused. Batch reads read the
 * state the mode starts at (`latest` and `latest-full` alike); streams go on from there.
 */
object ScanMode {
  val Key = "scan.mode"
  val LatestFull = "latest-full"
  val Latest = "latest"
  val CompactedFull = "compacted-full"
  val FromTimestamp = "from-timestamp"
  val FromSnapshot = "from-snapshot"
  val FromSnapshotFull = "from-snapshot-full"
  val Incremental = "incremental"

  private val TimestampKeys = Seq(TimeTravel.TimestampMillisKey, TimeTravel.TimestampKey, TimeTravel.TimestampAsOfKey)
  private val SnapshotKeys = Seq(TimeTravel.SnapshotIdKey, TimeTravel.TagNameKey, TimeTravel.VersionKey,
    TimeTravel.VersionAsOfKey)
  /** The keys of a range of changes, read by the `incremental` mode (table.changes.ChangeRange). */
  val IncrementalBetweenKey = "incremental-between"
  val IncrementalBetweenTimestampKey = "incremental-between-timestamp"
  private val IncrementalKeys = Seq(IncrementalBetweenKey, IncrementalBetweenTimestampKey)

  /** The mode read options ask for, `default` and `full` resolved; throws naming an option that does not fit it. */
  def of(options: String => Option[String]): String = {
    def present(keys: Seq[String]) = keys.filter(k => options(k).isDefined)
    val mode = options(Key).map(v => OptionKind.OneOf("StartupMode", Modes).canonical(Key, v)) match {
      case None | Some("default") =>
        if (present(TimestampKeys).nonEmpty) FromTimestamp
        else if (present(SnapshotKeys).nonEmpty) FromSnapshot
        else if (present(IncrementalKeys).nonEmpty) Incremental
        else LatestFull
      case Some("full") => LatestFull
      case Some(m) => m
    }
    val (needed, allowed) = mode match {
      case FromTimestamp => (TimestampKeys, TimestampKeys)
      case FromSnapshot => (SnapshotKeys, SnapshotKeys)
      case FromSnapshotFull => (Seq(TimeTravel.SnapshotIdKey), Seq(TimeTravel.SnapshotIdKey))
      case Incremental => (IncrementalKeys, IncrementalKeys)
      case _ => (Nil, Nil)
    }
    if (needed.nonEmpty && present(needed).isEmpty) {
      throw new InvalidOptionException(Key, s"read option '$Key' = $mode needs one of ${needed.mkString(", ")}")
    }
    present(TimestampKeys ++ SnapshotKeys ++ IncrementalKeys).find(k => !allowed.contains(k)).foreach { k =>
      throw new InvalidOptionException(k, s"read option '$k' cannot be used with '$Key' = $mode")
    }
    mode
  }

  /** Paimon's modes, `from-file-creation-time` and `from-creation-timestamp` included (refused as unsupported). */
  val Modes: Seq[String] = Seq("default", LatestFull, "full", Latest, CompactedFull, FromTimestamp,
    "from-creation-timestamp", "from-file-creation-time", FromSnapshot, FromSnapshotFull, Incremental)
}
