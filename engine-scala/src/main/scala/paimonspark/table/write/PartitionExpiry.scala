package paimonspark.table.write

import java.time.{Duration, Instant, LocalDate, LocalDateTime, ZoneId}
import java.time.format.{DateTimeFormatter, DateTimeFormatterBuilder}
import java.time.temporal.ChronoField
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ThreadLocalRandom

import scala.util.Try

import paimonspark.format.PartitionPath
import paimonspark.table.FileStoreTable
import paimonspark.table.scan.{DataSplit, PartitionFilter, ScanPlanner}

/**
 * Paimon's partition expiry: a partition whose time is more than `expirationTime` ago loses all
 * its files in one OVERWRITE commit. Its time is, by strategy, the time its values spell
 * (`values-time`: `timestamp-pattern` such as `$dt $hour:00:00` over the partition's values, else
 * its first value, parsed with `timestamp-formatter`, else leniently as `yyyy-M-d[ H:m:s]`; a value
 * that does not parse is skipped) or the creation time of its newest file (`update-time`). At most
 * `maxExpires` partitions go per run, the smallest first.
 */
final case class PartitionExpiry(expirationTime: Duration, strategy: String, formatter: Option[String],
    pattern: Option[String], maxExpires: Int) {

  /** Expires what is due at `now`; returns the expired partitions, each as `k1=v1, k2=v2`. */
  def expire(table: FileStoreTable, now: LocalDateTime): Seq[String] = {
    val keys = table.schema.partitionKeys
    val types = table.schema.partitionRowType
    val limit = now.minus(expirationTime)
    val held = ScanPlanner.forMetadata(table).plan(table.currentSnapshot(), None).groupBy(_.partition.values.toSeq).values.toSeq
    val due = held.flatMap { splits =>
      val values = PartitionPath.values(types, splits.head.partition, table.options.partitionDefaultName)
      time(keys, values, splits).filter(_.isBefore(limit)).map(_ => (values, splits.head))
    }.sortBy(_._1.mkString("/")).take(maxExpires)
    if (due.nonEmpty) {
      val drop = PartitionFilter.exactly(table.schema, due.map(_._2.partition))
      new TableCommit(table, s"partition-expiry-${java.util.UUID.randomUUID()}").commit(Nil, Some(OverwriteScope.Matching(drop)))
    }
    due.map { case (values, _) => keys.zip(values).map { case (k, v) => s"$k=$v" }.mkString(", ") }
  }

  private def time(keys: Seq[String], values: Seq[String], splits: Seq[DataSplit]): Option[LocalDateTime] =
    strategy match {
      case PartitionExpiry.UpdateTime =>
        splits.flatMap(_.files).flatMap(_.creationTimeMillis).maxOption
          .map(ms => LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneId.systemDefault()))
      case _ =>
        val text = pattern.fold(values.head)(p => keys.zip(values).foldLeft(p) { case (t, (k, v)) => t.replace("$" + k, v) })
        PartitionExpiry.parse(text, formatter)
    }
}

object PartitionExpiry {
  val UpdateTime = "update-time"

  // Paimon's lenient default: a date, optionally with a time of day, fields of one or two digits.
  private val Lenient = new DateTimeFormatterBuilder().appendPattern("yyyy-M-d")
    .optionalStart().appendPattern(" H:m:s").optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
    .optionalEnd().optionalEnd().parseDefaulting(ChronoField.HOUR_OF_DAY, 0).toFormatter()

  def parse(text: String, formatter: Option[String]): Option[LocalDateTime] = {
    val format = formatter.fold(Lenient)(DateTimeFormatter.ofPattern)
    Try(LocalDateTime.parse(text, format)).orElse(Try(LocalDate.parse(text, format).atStartOfDay())).toOption
  }

  /** The table's partition expiry, if `partition.expiration-time` is set and the table is partitioned. */
  def of(table: FileStoreTable): Option[PartitionExpiry] = {
    val o = table.options
    o.partitionExpirationTime.filter(_ => table.schema.partitionKeys.nonEmpty).map { time =>
      PartitionExpiry(time, o.partitionExpirationStrategy, o.partitionTimestampFormatter, o.partitionTimestampPattern,
        o.partitionExpirationMaxNum)
    }
  }

  // When this JVM last checked each table, as Paimon's writers keep it: the first check comes a random
  // part of an interval after a table is first seen, so that many writers do not all check at once.
  private val lastChecks = new ConcurrentHashMap[String, java.lang.Long]()

  /**
   * Expires what is due after a commit, at most once per `partition.expiration-check-interval` per
   * table, and after every batch write (`endOfInput`) with `end-input.check-partition-expire`.
   */
  def afterCommit(table: FileStoreTable, endOfInput: Boolean): Unit = of(table).foreach { expiry =>
    val interval = table.options.partitionExpirationCheckInterval.toMillis
    val now = System.currentTimeMillis()
    val key = table.location.toString
    val last = lastChecks.computeIfAbsent(key, _ =>
      now - (if (interval > 0) ThreadLocalRandom.current().nextLong(interval) else 0L))
    val due = (now - last >= interval && lastChecks.replace(key, last, now)) ||
      (endOfInput && table.options.endInputChecksPartitionExpiry)
    if (due) expiry.expire(table, LocalDateTime.now())
  }
}
