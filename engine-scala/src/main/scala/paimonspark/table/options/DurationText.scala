package paimonspark.table.options

import java.time.Duration

import paimonspark.InvalidOptionException

/** Paimon's duration values (`TimeUtils.parseDuration`): `1 h`, `30min`, `1 d`, `500 ms`, `10` (milliseconds). */
object DurationText {
  private val Pattern = "(?i)\\s*(\\d+)\\s*([a-z]*)\\s*".r
  private val Units: Seq[(Set[String], Duration)] = Seq(
    Set("ns", "nano", "nanos", "nanosecond", "nanoseconds") -> Duration.ofNanos(1),
    Set("us", "µs", "micro", "micros", "microsecond", "microseconds") -> Duration.ofNanos(1000),
    Set("", "ms", "milli", "millis", "millisecond", "milliseconds") -> Duration.ofMillis(1),
    Set("s", "sec", "secs", "second", "seconds") -> Duration.ofSeconds(1),
    Set("m", "min", "mins", "minute", "minutes") -> Duration.ofMinutes(1),
    Set("h", "hour", "hours") -> Duration.ofHours(1),
    Set("d", "day", "days") -> Duration.ofDays(1))

  def parse(what: String, text: String): Duration = text match {
    case Pattern(n, unit) => Units.collectFirst { case (names, d) if names(unit.toLowerCase) => d.multipliedBy(n.toLong) }
      .getOrElse(throw malformed(what, text))
    case _ => throw malformed(what, text)
  }

  private def malformed(what: String, text: String) =
    new InvalidOptionException(what, s"$what must be a duration such as '1 h', '30 min' or '1 d', not '$text'")
}
