package paimonspark.spark.read

import org.apache.spark.sql.{Row, SparkSession}
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

  test("merged batches copy fixed-width columns of every type, nulls and decimals wider than a long read in place") {
    val (spark, _) = LocalSession.start("pk-copied-columns")
    try {
      spark.conf.set("spark.sql.parquet.columnarReaderBatchSize", "7")
      val t = "paimon.default.typed"
      spark.sql(s"CREATE TABLE $t (id INT, b BOOLEAN, y TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, " +
        "m DECIMAL(12, 2), n DECIMAL(7, 2), w DECIMAL(30, 5), day DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, txt STRING) " +
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')")
      val columns = Seq("(id + $w) % 2 = 0", "CAST(id - 100 AS TINYINT)", "CAST(id * $w AS SMALLINT)",
        "CAST(id * 1000 + $w AS INT)", "CAST(id AS BIGINT) * 10000000000 + $w", "CAST(id / 3.0 AS FLOAT)",
        "CAST(id / 7.0 + $w AS DOUBLE)", "CAST(id * 1.25 + $w AS DECIMAL(12, 2))", "CAST(id * 0.75 + $w AS DECIMAL(7, 2))",
        "CAST(CAST(id AS DECIMAL(30, 5)) * 10000000000000000 + $w AS DECIMAL(30, 5))", "DATE_ADD(DATE'2024-01-01', CAST(id + $w AS INT))",
        "TIMESTAMP_SECONDS(1700000000 + id * 60 + $w)", "CAST(TIMESTAMP_SECONDS(1700000000 + id + $w) AS TIMESTAMP_NTZ)",
        "CONCAT('w', $w, '-', id)")
      // Four runs whose keys interleave: every key in the first, every 2nd (from 1) in the second, every 3rd in the
      // third, every 5th (from 2) in the last, which holds no null. The others hold nulls below key 100 only, so
      // batches are copied with nulls in every run, in some runs, and in none.
      val writes = Seq((1, 1, 0), (2, 2, 1), (3, 3, 0)).map { case (w, step, from) =>
        written(columns, w, from, step, s"(id + $w) % 5 = 0 AND id < 100")
      } :+ written(columns, 4, 2, 5, "false")
      writes.foreach(q => spark.sql(s"INSERT INTO $t $q"))
      val df = spark.table(t)
      assert(df.queryExecution.executedPlan.exists(_.isInstanceOf[ColumnarToRowExec]))
      val merged = byKey(df.collect())
      assert(merged.size == 200)
      assert(merged == byKey(lastWrites(spark, writes)))
    } finally spark.stop()
  }

  test("deletion vectors drop marked rows from column batches of fixed-width, wide decimal and string columns, nulls kept") {
    val (spark, _) = LocalSession.start("pk-vector-batches")
    try {
      spark.conf.set("spark.sql.parquet.columnarReaderBatchSize", "7")
      val t = "paimon.default.marked"
      spark.sql(s"CREATE TABLE $t (id INT, b BOOLEAN, l BIGINT, d DOUBLE, m DECIMAL(12, 2), w DECIMAL(30, 5), " +
        "ts TIMESTAMP, txt STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
        "'deletion-vectors.enabled' = 'true')")
      val columns = Seq("(id + $w) % 2 = 0", "CAST(id AS BIGINT) * 10000000000 + $w", "CAST(id / 7.0 + $w AS DOUBLE)",
        "CAST(id * 1.25 + $w AS DECIMAL(12, 2))", "CAST(CAST(id AS DECIMAL(30, 5)) * 10000000000000000 + $w AS DECIMAL(30, 5))",
        "TIMESTAMP_SECONDS(1700000000 + id * 60 + $w)", "CONCAT('w', $w, '-', id)")
      // Every write is compacted: the updates of every 3rd key mark their old rows in the first file.
      val writes = Seq(written(columns, 1, 0, 1), written(columns, 2, 0, 3))
      writes.foreach(q => spark.sql(s"INSERT INTO $t $q"))
      spark.sql(s"DELETE FROM $t WHERE id % 4 = 1")
      val indexes = spark.sql("SELECT * FROM paimon.default.`marked$table_indexes` WHERE index_type = 'DELETION_VECTORS'")
      assert(indexes.count() > 0)
      val df = spark.table(t)
      assert(df.queryExecution.executedPlan.exists(_.isInstanceOf[ColumnarToRowExec]))
      val read = byKey(df.collect())
      assert(read.size == 150)
      assert(read == byKey(lastWrites(spark, writes).filter(_.getInt(0) % 4 != 1)))
    } finally spark.stop()
  }

  /**
   * A write's query: keys `from` until 200 by `step`, each of `columns` with `$w` as the write's number,
   * so that every value derives from (key, write); the rows where `nulls` holds (by default a 5th of the
   * rows, other keys in each write) are all nulls.
   */
  private def written(columns: Seq[String], w: Int, from: Int, step: Int, nulls: String = ""): String =
    "SELECT CAST(id AS INT) AS id, " + columns.map { c =>
      s"CASE WHEN ${if (nulls.isEmpty) s"(id + $w) % 5 = 0" else nulls} THEN NULL ELSE ${c.replace("$w", w.toString)} END"
    }.mkString(", ") + s" FROM range($from, 200, $step)"

  /** Each key's row as the last of `writes` (queries, in write order) that wrote it computed it. */
  private def lastWrites(spark: SparkSession, writes: Seq[String]): Seq[Row] =
    writes.map(spark.sql(_).collect().map(r => r.getInt(0) -> r).toMap).reduce(_ ++ _).values.toSeq

  /** Rows keyed by an INT first column, as value sequences in key order. */
  private def byKey(rows: Iterable[Row]): Seq[Seq[Any]] = rows.toSeq.sortBy(_.getInt(0)).map(_.toSeq)
}
