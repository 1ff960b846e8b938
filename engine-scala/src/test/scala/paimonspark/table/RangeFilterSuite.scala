package paimonspark.table

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.DataTypes
import paimonspark.table.Predicate._

/** File skipping must be conservative: only skip what cannot match. */
class RangeFilterSuite extends AnyFunSuite {
  private val filter = new RangeFilter(_ => ValueOrdering.of(DataTypes.int))
  private def file(min: Any, max: Any, nulls: Option[Long] = Some(0L), rows: Long = 10L): Int => ColumnRange =
    _ => ColumnRange(min, max, nulls, rows)

  test("comparisons keep a file exactly when its range can hold a match") {
    val f = file(10, 20)
    assert(filter.mayMatch(Compare(Eq, 0, 15), f) && !filter.mayMatch(Compare(Eq, 0, 21), f))
    assert(filter.mayMatch(Compare(Lt, 0, 11), f) && !filter.mayMatch(Compare(Lt, 0, 10), f))
    assert(filter.mayMatch(Compare(GtEq, 0, 20), f) && !filter.mayMatch(Compare(Gt, 0, 20), f))
    assert(filter.mayMatch(In(0, Seq(1, 12)), f) && !filter.mayMatch(In(0, Seq(1, 30)), f))
  }

  test("unknown bounds keep every file") {
    assert(filter.mayMatch(Compare(Eq, 0, 99), file(null, null)))
    assert(filter.mayMatch(Compare(Eq, 0, 99), file(1, null)))
  }

  test("null counts decide IS NULL and all-null files") {
    assert(!filter.mayMatch(IsNull(0), file(1, 2)))
    assert(filter.mayMatch(IsNull(0), file(1, 2, nulls = None)))
    assert(!filter.mayMatch(IsNotNull(0), file(null, null, nulls = Some(10L))))
    assert(!filter.mayMatch(Compare(Eq, 0, 1), file(null, null, nulls = Some(10L))))
  }

  test("NOT is pushed to the leaves, and NOT IN keeps files with values") {
    val f = file(10, 20)
    assert(!filter.mayMatch(Not(Compare(Lt, 0, 30)), f))
    assert(filter.mayMatch(Not(Compare(Eq, 0, 15)), f))
    assert(!filter.mayMatch(Not(Compare(Eq, 0, 15)), file(15, 15)))
    assert(filter.mayMatch(Not(In(0, Seq(15))), file(15, 15)))
    assert(!filter.mayMatch(Not(Or(Compare(Lt, 0, 30), IsNull(0))), f))
  }
}
