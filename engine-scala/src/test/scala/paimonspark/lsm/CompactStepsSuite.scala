package paimonspark.lsm

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats}
import paimonspark.lsm.CompactStep.{Rewrite, Upgrade}

/** How a compaction unit is carried out, on hand-made key sections: which files are merged, which only move up. */
class CompactStepsSuite extends AnyFunSuite {
  private val toTop = CompactSteps(outputLevel = 5, maxLevel = 5, minFileSize = 100)
  private val toMiddle = CompactSteps(outputLevel = 3, maxLevel = 5, minFileSize = 100)

  private def file(name: String, level: Int, size: Long, deletes: Option[Long] = Some(0)): DataFileMeta =
    DataFileMeta(name, size, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, SimpleStats.Empty,
      SimpleStats.Empty, 0L, 0L, 0L, level, Nil, None, deletes, None, Some(FileSource.Append), None, None, None, None)

  private def names(steps: Seq[CompactStep]): Seq[String] = steps.map {
    case Rewrite(files) => files.map(_.fileName).mkString("rewrite(", ",", ")")
    case Upgrade(f, read) => s"${if (read) "read+" else ""}upgrade(${f.fileName})"
  }

  test("a large file that overlaps nothing moves up without being rewritten; overlapping files are merged") {
    val a = file("a", 0, 500)
    val b1 = file("b1", 0, 500)
    val b2 = file("b2", 4, 500)
    assert(names(toMiddle.plan(Seq(Seq(a), Seq(b1, b2)))) == Seq("upgrade(a)", "rewrite(b1,b2)"))
  }

  test("small files next to each other are merged together, and a large file cuts the group") {
    val steps = toMiddle.plan(Seq(Seq(file("s1", 0, 10)), Seq(file("s2", 0, 10)), Seq(file("big", 0, 500)),
      Seq(file("s3", 0, 10)), Seq(file("o1", 0, 10), file("o2", 0, 10))))
    assert(names(steps) == Seq("rewrite(s1,s2)", "upgrade(big)", "rewrite(s3,o1,o2)"))
  }

  test("a small file left alone is moved up rather than rewritten") {
    assert(names(toMiddle.plan(Seq(Seq(file("big", 0, 500)), Seq(file("small", 0, 10))))) ==
      Seq("upgrade(big)", "upgrade(small)"))
  }

  test("files with retractions, or an unknown count of them, are rewritten into the top level, never moved there") {
    val steps = toTop.plan(Seq(Seq(file("clean", 0, 500)), Seq(file("deletes", 0, 500, Some(3))),
      Seq(file("unknown", 0, 500, None)), Seq(file("top", 5, 500, Some(1)))))
    assert(names(steps) == Seq("upgrade(clean)", "rewrite(deletes)", "rewrite(unknown)", "rewrite(top)"))
    // Below the top level retractions must stay, so moving such a file up is fine.
    assert(names(toMiddle.plan(Seq(Seq(file("deletes", 0, 500, Some(3)))))) == Seq("upgrade(deletes)"))
  }

  test("a file already at the output level that overlaps nothing is left untouched") {
    assert(toTop.plan(Seq(Seq(file("settled", 5, 500)), Seq(file("small", 5, 10)))).isEmpty)
    assert(names(toTop.plan(Seq(Seq(file("settled", 5, 500)), Seq(file("new", 0, 500))))) == Seq("upgrade(new)"))
  }

  test("a file moved up alone is read, rewritten or only moved as the table's upgrade rule says") {
    val lookup = UpgradeRule.Lookup(maxLevel = 5, _ => "parquet", vectors = true, deduplicateWithoutSequence = false)
    val sections = Seq(Seq(file("new", 0, 500)), Seq(file("mid", 2, 500)), Seq(file("s1", 0, 10)),
      Seq(file("o1", 0, 10), file("o2", 4, 10)))
    assert(names(toMiddle.copy(upgrades = lookup).plan(sections)) ==
      Seq("rewrite(new)", "upgrade(mid)", "rewrite(s1,o1,o2)"))
    assert(names(toMiddle.copy(upgrades = lookup.copy(deduplicateWithoutSequence = true)).plan(sections)) ==
      Seq("read+upgrade(new)", "upgrade(mid)", "rewrite(s1,o1,o2)"))
    // Into the top level a file with retractions is rewritten before the rule is asked; the rest are read and moved.
    assert(names(toTop.copy(upgrades = UpgradeRule.FullChangelog(5)).plan(Seq(Seq(file("new", 0, 500)),
      Seq(file("deletes", 0, 500, Some(3))), Seq(file("mid", 2, 500))))) ==
      Seq("read+upgrade(new)", "rewrite(deletes)", "read+upgrade(mid)"))
  }
}
