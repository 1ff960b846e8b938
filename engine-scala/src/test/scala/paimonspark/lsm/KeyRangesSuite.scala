package paimonspark.lsm

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.DataTypes
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats}

/** Key ranges of hand-made files with an INT key. */
class KeyRangesSuite extends AnyFunSuite {
  private val ranges = new KeyRanges(Seq(DataTypes.int))
  private def key(k: Int) = BinaryRow.serialize(Seq(DataTypes.int), new GenericInternalRow(Array[Any](k)))
  private def file(name: String, min: Int, max: Int): DataFileMeta = DataFileMeta(name, 1L, 1L, key(min), key(max),
    SimpleStats.Empty, SimpleStats.Empty, 0L, 0L, 0L, 1, Nil, None, Some(0L), None, Some(FileSource.Append), None, None,
    None, None)

  test("files overlapping directly or through another file share a section; sections come in key order") {
    val files = Seq(file("d", 50, 60), file("a", 1, 10), file("b", 5, 20), file("c", 20, 30), file("e", 61, 70))
    assert(ranges.sections(files).map(_.map(_.fileName)) == Seq(Seq("a", "b", "c"), Seq("d"), Seq("e")))
  }

  test("a file inside a wide one joins its section even after a gap") {
    val files = Seq(file("wide", 0, 100), file("x", 10, 11), file("y", 90, 95), file("after", 101, 200))
    assert(ranges.sections(files).map(_.map(_.fileName).toSet) == Seq(Set("wide", "x", "y"), Set("after")))
  }

  test("overlap within one level is found, touching ends included") {
    assert(ranges.firstOverlap(Seq(file("a", 1, 10), file("b", 11, 20))).isEmpty)
    assert(ranges.firstOverlap(Seq(file("b", 10, 20), file("a", 1, 10))).map { case (x, y) => (x.fileName, y.fileName) }
      .contains(("a", "b")))
    assert(ranges.sections(Nil).isEmpty)
  }
}
