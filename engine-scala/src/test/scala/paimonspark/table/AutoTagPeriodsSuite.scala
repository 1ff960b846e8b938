package paimonspark.table

import java.time.{Duration, LocalDateTime}

import org.scalatest.funsuite.AnyFunSuite

class AutoTagPeriodsSuite extends AnyFunSuite {
  private val t = LocalDateTime.of(2026, 11, 24, 10, 30)

  test("names follow tag.period-formatter and parse back") {
    assert(AutoTagPeriods("daily", "with_dashes").name(t.minusDays(1).toLocalDate.atStartOfDay()) == "2026-11-23")
    assert(AutoTagPeriods("daily", "without_dashes").name(t.toLocalDate.atStartOfDay()) == "20261124")
    assert(AutoTagPeriods("hourly", "with_dashes").name(t.withMinute(0)) == "2026-11-24 10")
    assert(AutoTagPeriods("hourly", "without_dashes_and_spaces").name(t.withMinute(0)) == "2026112410")
    val hourly = AutoTagPeriods("hourly", "with_dashes")
    assert(hourly.parse("2026-11-24 10").contains(t.withMinute(0)))
    assert(hourly.parse("my-tag").isEmpty && hourly.parse("2026-11-24").isEmpty)
    assert(AutoTagPeriods("two-hours", "with_dashes").floor(LocalDateTime.of(2026, 11, 24, 11, 59)) ==
      LocalDateTime.of(2026, 11, 24, 10, 0))
  }

  test("the first auto tag is for the period before the first snapshot's, at once") {
    assert(AutoTagPeriods("daily", "with_dashes").due(None, t, Duration.ZERO).contains(LocalDateTime.of(2026, 11, 23, 0, 0)))
  }

  test("a period is tagged by the first snapshot past its end plus the delay") {
    val daily = AutoTagPeriods("daily", "with_dashes")
    val next = Some(LocalDateTime.of(2026, 11, 24, 0, 0))
    assert(daily.due(next, LocalDateTime.of(2026, 11, 24, 23, 59), Duration.ZERO).isEmpty)
    assert(daily.due(next, LocalDateTime.of(2026, 11, 25, 0, 0), Duration.ZERO).contains(next.get))
    assert(daily.due(next, LocalDateTime.of(2026, 11, 25, 0, 30), Duration.ofHours(1)).isEmpty)
    assert(daily.due(next, LocalDateTime.of(2026, 11, 25, 1, 0), Duration.ofHours(1)).contains(next.get))
  }
}
