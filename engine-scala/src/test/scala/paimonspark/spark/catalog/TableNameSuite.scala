package paimonspark.spark.catalog

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.InvalidIdentifierException

class TableNameSuite extends AnyFunSuite {
  test("Paimon's identifiers: table, branch, system table, both") {
    assert(TableName.parse("t") == TableName("t", None, None))
    assert(TableName.parse("t$branch_b1") == TableName("t", Some("b1"), None))
    assert(TableName.parse("t$Snapshots") == TableName("t", None, Some("snapshots")))
    assert(TableName.parse("t$branch_b1$files") == TableName("t", Some("b1"), Some("files")))
  }

  test("malformed names are refused, naming the name") {
    Seq("t$a$b", "t$branch_", "t$a$b$c").foreach { n =>
      assert(intercept[InvalidIdentifierException](TableName.parse(n)).getMessage.contains(n))
    }
  }
}
