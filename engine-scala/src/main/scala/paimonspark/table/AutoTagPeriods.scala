package paimonspark.table

import java.time.{Duration, LocalDateTime}
import java.time.format.DateTimeFormatter
import java.time.temporal.ChronoUnit

import scala.util.Try

/**
 * Paimon's automatic tags as a pure function of times: which period a snapshot's time closes, and
 * the tag names of periods (`tag.creation-period`, `tag.period-formatter`).
 */
final case class AutoTagPeriods(period: String, formatter: String) {
  val length: Duration = period match {
    case "hourly" => Duration.ofHours(1)
    case "two-hours" => Duration.ofHours(2)
    case _ => Duration.ofDays(1)
  }

  private val pattern = (period, formatter) match {
    case ("daily", "with_dashes") => "yyyy-MM-dd"
    case ("daily", _) => "yyyyMMdd"
    case ("hourly", "without_dashes") => "yyyyMMdd HH"
    case ("hourly", "without_dashes_and_spaces") => "yyyyMMddHH"
    case _ => "yyyy-MM-dd HH"
  }
  private val format = DateTimeFormatter.ofPattern(pattern)

  /** The start of the period holding `t`. */
  def floor(t: LocalDateTime): LocalDateTime = period match {
    case "daily" => t.truncatedTo(ChronoUnit.DAYS)
    case "hourly" => t.truncatedTo(ChronoUnit.HOURS)
    case _ => t.truncatedTo(ChronoUnit.HOURS).withHour(t.getHour - t.getHour % 2)
  }

  def name(periodStart: LocalDateTime): String = format.format(periodStart)

  /** The period start an auto tag's name stands for, or None for a name that is not an auto tag's. */
  def parse(name: String): Option[LocalDateTime] =
    if (name.length != pattern.length) None
    else if (period == "daily") Try(java.time.LocalDate.parse(name, format).atStartOfDay()).toOption
    else Try(LocalDateTime.parse(name, format)).toOption

  /**
   * The period a snapshot at `t` gets a tag for, given the next period still to tag (None before
   * the first auto tag): the period before `t`'s, once `t` is past the end of `next` by `delay`.
   */
  def due(next: Option[LocalDateTime], t: LocalDateTime, delay: Duration): Option[LocalDateTime] =
    if (next.forall(n => !t.minus(delay).isBefore(n.plus(length)))) Some(floor(t).minus(length)) else None
}
