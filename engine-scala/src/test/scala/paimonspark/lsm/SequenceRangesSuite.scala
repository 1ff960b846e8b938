package paimonspark.lsm

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.DataTypes
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats}

/** Sequence ranges of hand-made files with an INT key. */
class SequenceRangesSuite extends AnyFunSuite {
  private val keys = new KeyRanges(Seq(DataTypes.int))
  private def key(k: Int) = BinaryRow.serialize(Seq(DataTypes.int), new GenericInternalRow(Array[Any](k)))
  private def file(name: String, minKey: Int, maxKey: Int, minSeq: Long, maxSeq: Long): DataFileMeta =
    DataFileMeta(name, 1L, 1L, key(minKey), key(maxKey), SimpleStats.Empty, SimpleStats.Empty, minSeq, maxSeq, 0L, 1,
      Nil, None, Some(0L), None, Some(FileSource.Append), None, None, None, None)
  private def disjoint(files: DataFileMeta*) = SequenceRanges.disjointWhereKeysMeet(files, keys)

  test("runs written one after another have disjoint ranges, whatever their order in the section") {
    assert(disjoint(file("l0-new", 0, 99, 200, 299), file("l5", 0, 99, 0, 99), file("l0-old", 10, 50, 100, 199)))
    assert(disjoint(file("only", 0, 99, 0, 99)))
    assert(disjoint())
  }

  test("overlapping ranges of files that may share a key rule the stand-ins out, touching ends included") {
    assert(!disjoint(file("writer-a", 0, 99, 100, 150), file("writer-b", 50, 60, 120, 130)))
    assert(!disjoint(file("a", 0, 99, 0, 100), file("b", 99, 120, 100, 200)))
  }

  test("files of one level share no key, so their sequence ranges may overlap") {
    val level = Seq(file("left", 0, 49, 0, 99), file("right", 50, 99, 0, 99))
    assert(disjoint(level :+ file("l0", 0, 99, 100, 120): _*))
    assert(!disjoint(level :+ file("l0", 40, 60, 50, 120): _*))
  }
}
