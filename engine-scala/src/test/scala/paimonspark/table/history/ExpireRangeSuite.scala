package paimonspark.table.history

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.table.ExpireConfig

class ExpireRangeSuite extends AnyFunSuite {
  private def config(min: Int = 10, max: Int = Int.MaxValue, olderThan: Long = 1000L, limit: Int = 50) =
    ExpireConfig(min, max, olderThan, limit)
  /** Snapshot n was committed at time n * 100. */
  private val times = (id: Long) => Some(id * 100)

  test("the newest retain_min snapshots always stay") {
    assert(ExpireRange.endExclusive(1, 10, None, config(min = 10, olderThan = Long.MaxValue), times) == 1)
    assert(ExpireRange.endExclusive(1, 12, None, config(min = 10, olderThan = Long.MaxValue), times) == 3)
  }

  test("between retain_min and retain_max only snapshots older than time-retained go, stopping at the first young one") {
    // Snapshots 1..20; times 100..2000; older than 1000 means ids below 10.
    assert(ExpireRange.endExclusive(1, 20, None, config(min = 1), times) == 10)
  }

  test("beyond retain_max snapshots go whatever their age") {
    assert(ExpireRange.endExclusive(1, 20, None, config(min = 1, max = 5, olderThan = 0), times) == 16)
  }

  test("a consumer and expire.limit cap the range") {
    assert(ExpireRange.endExclusive(1, 20, Some(4L), config(min = 1, max = 5, olderThan = 0), times) == 4)
    assert(ExpireRange.endExclusive(1, 20, None, config(min = 1, max = 5, olderThan = 0, limit = 3), times) == 4)
  }

  test("snapshots missing from the middle do not stop the time check") {
    val holes = (id: Long) => if (id == 3) None else Some(id * 100)
    assert(ExpireRange.endExclusive(1, 20, None, config(min = 1), holes) == 10)
  }
}
