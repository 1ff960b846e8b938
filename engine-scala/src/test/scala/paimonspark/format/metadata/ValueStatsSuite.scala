package paimonspark.format.metadata

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.StatsMode

class ValueStatsSuite extends AnyFunSuite {
  test("stats modes parse as Paimon spells them") {
    assert(StatsMode.parse("truncate(16)").contains(StatsMode.Truncate(16)))
    assert(StatsMode.parse("none").contains(StatsMode.NoStats))
    assert(StatsMode.parse("FULL").contains(StatsMode.Full))
    assert(StatsMode.parse("truncate(0)").isEmpty && StatsMode.parse("sometimes").isEmpty)
  }

  test("truncated bounds stay bounds: a min is a prefix, a max has its last code point raised") {
    assert(ValueStats.truncate("short", 16, isMax = true).contains("short"))
    assert(ValueStats.truncate("abcdefgh", 3, isMax = false).contains("abc"))
    assert(ValueStats.truncate("abcdefgh", 3, isMax = true).contains("abd"))
    val max = ValueStats.truncate("ab\uD83D\uDE00zz", 3, isMax = true).get // 'a', 'b', U+1F600
    assert(max == "ab\uD83D\uDE01")
    assert(max > "ab\uD83D\uDE00zz")
  }

  test("a max whose last code point cannot be raised is unknown") {
    val top = new String(Character.toChars(Character.MAX_CODE_POINT))
    assert(ValueStats.truncate("a" + top + "zz", 2, isMax = true).isEmpty)
  }
}
