package paimonspark.table.scan

import java.time.ZoneId

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.InvalidOptionException
import paimonspark.table.options.DurationText

class TimeTravelSuite extends AnyFunSuite {
  private val utc = ZoneId.of("UTC")
  private def from(options: (String, String)*) = TimeTravel.fromOptions(options.toMap.get, utc)

  test("each read option names its kind of point") {
    assert(from("scan.snapshot-id" -> "3").contains(TimeTravel.SnapshotId(3)))
    assert(from("scan.tag-name" -> "t1").contains(TimeTravel.TagName("t1")))
    assert(from("scan.version" -> "7").contains(TimeTravel.Version("7")))
    assert(from("scan.timestamp-millis" -> "1700000000000").contains(TimeTravel.AtMillis(1700000000000L)))
    assert(from("scan.timestamp" -> "2026-11-23 10:00:00").contains(TimeTravel.AtMillis(1795428000000L)))
    assert(from("timestampAsOf" -> "2026-11-23 10:00:00.500").contains(TimeTravel.AtMillis(1795428000500L)))
    assert(from().isEmpty)
  }

  test("malformed or conflicting options name the option") {
    def refused(options: (String, String)*): String = intercept[InvalidOptionException](from(options: _*)).getMessage
    assert(refused("scan.snapshot-id" -> "x").contains("scan.snapshot-id"))
    assert(refused("scan.snapshot-id" -> "0").contains("positive"))
    assert(refused("scan.timestamp" -> "yesterday").contains("'yesterday'"))
    assert(refused("scan.snapshot-id" -> "1", "scan.tag-name" -> "t").contains("give one"))
  }

  test("timestamps: local date-times in the zone, dates, epoch seconds") {
    assert(TimeTravel.parseTimestamp("t", "2026-11-23", utc) == 1795392000000L)
    assert(TimeTravel.parseTimestamp("t", "1795392000", utc) == 1795392000000L)
    assert(TimeTravel.parseTimestamp("t", "2026-11-23 01:00:00", ZoneId.of("+01:00")) == 1795392000000L)
  }

  test("durations in Paimon's forms") {
    assert(DurationText.parse("d", "1 h").toMinutes == 60)
    assert(DurationText.parse("d", "30min").toMinutes == 30)
    assert(DurationText.parse("d", "2 d").toHours == 48)
    assert(DurationText.parse("d", "500").toMillis == 500)
    assert(intercept[InvalidOptionException](DurationText.parse("time_retained", "-1 h")).getMessage.contains("'-1 h'"))
    assert(intercept[InvalidOptionException](DurationText.parse("time_retained", "1 fortnight")).getMessage
      .contains("time_retained"))
  }
}
