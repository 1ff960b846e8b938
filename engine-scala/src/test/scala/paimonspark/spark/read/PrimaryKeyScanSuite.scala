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

  test("the merge on key columns keeps the newest version across batch ends, drops deleted keys, and with ignore-delete keeps the last insert") {
    val (spark, _) = LocalSession.start("pk-key-column-merge")
    try {
      // Batches of 5 rows: runs reach their batch ends at different keys, and a selection holding
      // rows of a run at its batch end must be handed on before that run moves.
      spark.conf.set("spark.sql.parquet.columnarReaderBatchSize", "5")
      val random = new scala.util.Random(56)
      val extremes = Seq(Long.MinValue, Long.MaxValue, -1L, 0L)
      val writes = (1 to 4).map { w =>
        val keys = (extremes ++ Seq.fill(60)(random.nextInt(200).toLong - 100)).distinct.filter(_ => random.nextInt(4) > 0)
        val deleted = keys.filter(_ => random.nextInt(5) == 0).toSet
        (w, keys, deleted)
      }
      for (ignoreDelete <- Seq(false, true)) {
        val t = s"paimon.default.t_$ignoreDelete"
        spark.sql(s"CREATE TABLE $t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
          "'write-only' = 'true')")
        val model = scala.collection.mutable.Map.empty[Long, String]
        writes.foreach { case (w, keys, deleted) =>
          spark.sql(s"INSERT INTO $t VALUES " + keys.map(k => s"(${k}L, 'w$w')").mkString(", "))
          keys.foreach(k => model(k) = s"w$w")
          if (deleted.nonEmpty) {
            spark.sql(s"DELETE FROM $t WHERE id IN (${deleted.map(k => s"${k}L").mkString(", ")})")
            if (!ignoreDelete) deleted.foreach(model.remove)
          }
        }
        // Set after the deletes, which a table ignoring them refuses: its reads then pass over their retractions.
        if (ignoreDelete) spark.sql(s"ALTER TABLE $t SET TBLPROPERTIES ('ignore-delete' = 'true')")
        val df = spark.table(t)
        assert(df.queryExecution.executedPlan.exists(_.isInstanceOf[ColumnarToRowExec]))
        assert(df.collect().map(r => r.getLong(0) -> r.getString(1)).sortBy(_._1).toSeq == model.toSeq.sortBy(_._1), t)
      }
    } finally spark.stop()
  }
}
