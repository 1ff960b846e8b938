package paimonspark.table.compact

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.InvalidOptionException
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats}
import paimonspark.table.TableOptions

/** The append-table picker on hand-made partitions: files given in commit order by their sizes. */
class AppendCompactionSuite extends AnyFunSuite {
  // Target 100 bytes: files under 70 are small; a finished group weighs 200 with 1 of open cost per file.
  private val picker = AppendCompactPicker(targetFileSize = 100, smallFileSize = 70, openFileCost = 1, minFileNum = 5)

  private var count = 0
  private def files(sizes: Long*): Seq[DataFileMeta] = sizes.map { size =>
    count += 1
    DataFileMeta(s"f$count-$size", size, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, SimpleStats.Empty,
      SimpleStats.Empty, 0L, 0L, 0L, 0, Nil, None, Some(0L), None, Some(FileSource.Append), None, None, None, None)
  }
  private def sizes(groups: Seq[Seq[DataFileMeta]]): Seq[Seq[Long]] = groups.map(_.map(_.fileSize))

  test("fewer small files than compaction.min.file-num are left alone") {
    assert(picker.pick(files(10, 10, 10, 10)).isEmpty)
  }

  test("compaction.min.file-num small files are rewritten together, in commit order") {
    val inCommitOrder = files(10, 30, 20, 40, 5)
    assert(picker.pick(inCommitOrder) == Seq(inCommitOrder))
  }

  test("files at 70% of the target size or above are not small and never take part") {
    assert(sizes(picker.pick(files(10, 70, 10, 100, 10, 10, 69))) == Seq(Seq(10L, 10L, 10L, 10L, 69L)))
    assert(picker.pick(files(70, 80, 90, 100, 200, 300)).isEmpty)
  }

  test("a group is done once it weighs two target files, whatever min.file-num says") {
    // 60+1 three times is 183; the fourth file brings it to 244 >= 200.
    assert(sizes(picker.pick(files(60, 60, 60, 60))) == Seq(Seq(60L, 60L, 60L, 60L)))
    // After two full groups the two files left are too few.
    assert(sizes(picker.pick(files(60, 60, 60, 60, 60, 60, 60, 60, 5, 5))) ==
      Seq(Seq(60L, 60L, 60L, 60L), Seq(60L, 60L, 60L, 60L)))
  }

  test("the open-file cost makes many tiny files weigh like bigger ones") {
    val costly = picker.copy(openFileCost = 50)
    // Each file weighs 51: four make 204.
    assert(sizes(costly.pick(files(1, 1, 1, 1, 1, 1))) == Seq(Seq(1L, 1L, 1L, 1L)))
  }

  test("a single small file is never rewritten alone, even with min.file-num 1") {
    val eager = picker.copy(minFileNum = 1)
    assert(eager.pick(files(10)).isEmpty)
    assert(sizes(eager.pick(files(10, 500, 20))) == Seq(Seq(10L, 20L)))
  }

  test("options configure the picker with Paimon's defaults") {
    val defaults = AppendCompactPicker.of(TableOptions(Map.empty))
    assert(defaults == AppendCompactPicker(256L << 20, ((256L << 20) * 0.7).toLong, 4L << 20, 5))
    val set = AppendCompactPicker.of(TableOptions(Map("target-file-size" -> "10 mb", "compaction.min.file-num" -> "3",
      "compaction.small-file-ratio" -> "0.5", "source.split.open-file-cost" -> "1 kb")))
    assert(set == AppendCompactPicker(10L << 20, 5L << 20, 1024, 3))
  }

  test("bad option values are refused naming the option") {
    Seq("compaction.min.file-num" -> "0", "compaction.min.file-num" -> "many", "compaction.small-file-ratio" -> "0",
      "compaction.small-file-ratio" -> "1.5", "compaction.small-file-ratio" -> "x", "source.split.open-file-cost" -> "lots")
      .foreach { case (key, value) =>
        val error = intercept[InvalidOptionException](TableOptions.validate(Map(key -> value)))
        assert(error.option == key && error.getMessage.contains(key), s"$key=$value")
      }
    TableOptions.validate(Map("compaction.min.file-num" -> "1", "compaction.small-file-ratio" -> "1",
      "source.split.open-file-cost" -> "8 mb"))
  }
}
