package paimonspark.lsm

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats}

/** The universal picker on hand-made buckets: runs given newest first as (level, size). */
class UniversalCompactionSuite extends AnyFunSuite {
  private val picker = UniversalCompaction(maxSizeAmpPercent = 200, sizeRatioPercent = 1, trigger = 5, numLevels = 6)

  private var sequence = 1000L
  private def file(level: Int, size: Long, deletes: Long = 0): DataFileMeta = {
    sequence -= 1
    DataFileMeta(s"f$sequence-L$level-$size", size, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized,
      SimpleStats.Empty, SimpleStats.Empty, sequence, sequence, 0L, level, Nil, None, Some(deletes), None,
      Some(FileSource.Append), None, None, None, None)
  }
  private def runs(spec: (Int, Long)*): Seq[SortedRun] = SortedRun.of(spec.map { case (l, s) => file(l, s) })
  private def picked(unit: Option[CompactUnit]): Option[(Int, Seq[Long])] = unit.map(u => (u.outputLevel, u.files.map(_.fileSize)))

  test("runs are ordered newest level-0 file first, then levels upwards") {
    val new0 = file(0, 2) // files made earlier get higher sequence numbers here
    val old0 = file(0, 1)
    val ordered = SortedRun.of(Seq(file(5, 9), old0, file(2, 3), new0))
    assert(ordered.map(r => (r.level, r.totalSize)) == Seq((0, 2), (0, 1), (2, 3), (5, 9)))
  }

  test("fewer runs than the trigger are left alone") {
    assert(picker.pick(runs((0, 100), (0, 100), (0, 100), (0, 100))).isEmpty)
  }

  test("size amplification merges everything into the top level") {
    // 4 x 100 above a 100 oldest run: 400% > 200%.
    assert(picked(picker.pick(runs((0, 100), (0, 100), (0, 100), (0, 100), (5, 100)))) ==
      Some((5, Seq(100L, 100L, 100L, 100L, 100L))))
  }

  test("size ratio merges the newest runs while the next is not much bigger, into the level below it") {
    // Amplification 4 / 1000 is small; 1 + 1 + 1 + 1 cover each next run, the 1000 at level 5 stops them.
    assert(picked(picker.pick(runs((0, 1), (0, 1), (0, 1), (0, 1), (5, 1000)))) == Some((4, Seq(1L, 1L, 1L, 1L))))
  }

  test("past the trigger, the surplus newest runs are merged whatever their sizes") {
    // Sizes grow too fast for the ratio; 6 runs against a trigger of 5 force the two newest together,
    // and since level 0 is no output, runs are taken up to the level-1 one.
    val unit = picker.pick(runs((0, 1), (0, 10), (0, 100), (1, 1000), (2, 10000), (5, 100000)))
    assert(picked(unit) == Some((1, Seq(1L, 10L, 100L, 1000L))))
  }

  test("output is never level 0: runs are taken until one above level 0 gives the level") {
    assert(picked(picker.pick(runs((0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (3, 1000), (5, 100000)))) ==
      Some((2, Seq(1L, 1L, 1L, 1L, 1L))))
    assert(picked(picker.pick(runs((0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (1, 1000), (5, 100000)))) ==
      Some((1, Seq(1L, 1L, 1L, 1L, 1L, 1000L))))
  }

  test("lookup tables force level 0 up when nothing else is picked; gentle ones only once the interval's runs wait there") {
    val four = runs((0, 1), (0, 10), (0, 100), (0, 1000))
    assert(picked(picker.pickForLookup(four, None)) == Some((5, Seq(1L, 10L, 100L, 1000L))))
    assert(picker.pickForLookup(four, Some(5)).isEmpty)
    // Five level-0 runs growing too fast for the ratio, at the trigger but not past it: no usual pick.
    val five = runs((0, 1), (0, 10), (0, 100), (0, 1000), (0, 10000))
    assert(picker.pick(five).isEmpty)
    assert(picked(picker.pickForLookup(five, Some(5))) == Some((5, Seq(1L, 10L, 100L, 1000L, 10000L))))
    assert(picker.pickForLookup(five, Some(10)).isEmpty)
    assert(picker.pickForLookup(runs((5, 1000)), None).isEmpty)
  }

  test("full compaction takes every run to the top level unless that is done already") {
    assert(picked(picker.full(runs((0, 1), (2, 5)))) == Some((5, Seq(1L, 5L))))
    assert(picker.full(Seq(SortedRun(5, Seq(file(5, 10))))).isEmpty)
    assert(picker.full(Seq(SortedRun(5, Seq(file(5, 10, deletes = 1))))).nonEmpty)
    assert(picker.full(Nil).isEmpty)
  }
}
