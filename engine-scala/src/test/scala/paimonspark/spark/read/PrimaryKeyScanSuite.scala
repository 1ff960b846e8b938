package paimonspark.spark.read

import org.apache.spark.sql.execution.ColumnarToRowExec
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/** Merge-on-read planning and reads of a primary-key table written three times without compaction. */
class PrimaryKeyScanSuite extends AnyFunSuite {
  test("files of one writer merge by stand-in sequence numbers, and the newest version of each key wins") {
    val (spark, _) = LocalSession.start("pk-scan")
    try {
      spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING) TBLPROPERTIES " +
        "('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')")
      // Three runs whose keys overlap: 0-99 in the first, 50-149 in the second, every third key of 0-149 in the last.
      spark.sql("INSERT INTO paimon.default.t SELECT CAST(id AS INT), concat('a', id) FROM range(100)")
      spark.sql("INSERT INTO paimon.default.t SELECT CAST(id AS INT), concat('b', id) FROM range(50, 150)")
      spark.sql("INSERT INTO paimon.default.t SELECT CAST(id AS INT), concat('c', id) FROM range(0, 150, 3)")
      val df = spark.table("paimon.default.t")
      val plan = df.queryExecution.executedPlan
      // Stand-ins are only used by the columnar merge.
      assert(plan.exists(_.isInstanceOf[ColumnarToRowExec]))
      val splits = plan.collect { case s: BatchScanExec => s.inputPartitions }.flatten
      // A fixed-bucket table's scan keys each task by its bucket.
      val files = splits.collect { case BucketTask(_, m: MergeSplit) => m.sections.flatMap(_.files).toSeq }.flatten
      assert(files.size == 3)
      // Each run's highest sequence number: 99, then 100 more, then 50 more.
      assert(files.flatMap(_.sequence).sorted == Seq(99L, 199L, 249L))
      val expected = (0 until 150).map(i => i -> (if (i % 3 == 0) s"c$i" else if (i >= 50) s"b$i" else s"a$i"))
      assert(df.collect().map(r => r.getInt(0) -> r.getString(1)).sortBy(_._1).toSeq == expected)
    } finally spark.stop()
  }
}
