package paimonspark.table.options

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.InvalidOptionException

class ForeignKeysSuite extends AnyFunSuite {
  test("a swap of two neighbouring letters is one edit") {
    assert(ForeignKeys.editDistance("bukcet", "bucket") == 1)
    assert(ForeignKeys.editDistance("bucket", "bucket") == 0)
    assert(ForeignKeys.editDistance("team", "type") == 3)
  }

  test("keys of teams and other engines are kept") {
    Seq("team", "xyc", "owner.email", "lineage.source", "dlc.region", "tier", "retention-policy", "data.classification")
      .foreach(ForeignKeys.check)
  }

  test("keys like a misspelt Paimon option are refused naming the option meant") {
    Seq("bukcet" -> "bucket", "Bucket" -> "bucket", "file.formt" -> "file.format",
      "compaction.min.filenum" -> "compaction.min.file-num", "snapshot.num-retained.maximum" -> "snapshot.num-retained.max")
      .foreach { case (key, meant) =>
        val e = intercept[InvalidOptionException](ForeignKeys.check(key))
        assert(e.option == key && e.getMessage.contains(s"'$meant'"), e.getMessage)
      }
  }
}
