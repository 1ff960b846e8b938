package paimonspark.table.history

import java.time.{Instant, LocalDateTime, ZoneId}

import paimonspark.format.metadata.Snapshot
import paimonspark.table.{AutoTagPeriods, FileStoreTable, TableOptions}

/**
 * `tag.automatic-creation` = `process-time` or `watermark`, checked after each commit as Paimon
 * does: every snapshot since the last auto tag that closes a period (plus `tag.creation-delay`)
 * tags the period before its own, named by `tag.period-formatter`; beyond `tag.num-retained-max`
 * the oldest auto tags are deleted with their files.
 */
object TagAutoCreation {
  def run(table: FileStoreTable): Unit = {
    val options = table.options
    val byWatermark = options.tagAutoCreation match {
      case "process-time" => false
      case "watermark" => true
      case _ => return
    }
    val periods = AutoTagPeriods(options.tagCreationPeriod, options.tagPeriodFormatter)
    val tags = table.tagManager
    val snapshots = table.snapshotManager
    def autoTags = tags.list().flatMap { case (name, tag) => periods.parse(name).map(p => (name, tag.snapshot.id, p)) }
    val last = autoTags.maxByOption(_._2)
    var next = last.map(_._3.plus(periods.length))
    val from = math.max(last.map(_._2 + 1).getOrElse(1L), snapshots.earliestId().getOrElse(1L))
    val to = snapshots.latestId().getOrElse(0L)
    (from to to).flatMap(snapshots.readIfExists).foreach { s =>
      timeOf(s, byWatermark, options).flatMap(t => periods.due(next, t, options.tagCreationDelay)).foreach { period =>
        val name = periods.name(period)
        if (!tags.exists(name)) tags.create(name, s, options.tagDefaultTimeRetained)
        next = Some(period.plus(periods.length))
        options.tagNumRetainedMax.foreach { max =>
          val auto = autoTags.sortBy(_._2)
          if (auto.size > max) TagDeletion.delete(table, auto.take(auto.size - max).map(_._1))
        }
      }
    }
  }

  /**
   * Process time: the commit's time in `sink.process-time-zone`; watermark: the snapshot's
   * watermark, if it has a real one, in `sink.watermark-time-zone` (UTC unless set), as Paimon reads them.
   */
  private def timeOf(s: Snapshot, byWatermark: Boolean, options: TableOptions): Option[LocalDateTime] =
    if (byWatermark) s.watermark.filter(_ != Long.MinValue).map(local(_, options.watermarkZone))
    else Some(local(s.timeMillis, options.processTimeZone))

  private def local(millis: Long, zone: ZoneId): LocalDateTime = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), zone)
}
