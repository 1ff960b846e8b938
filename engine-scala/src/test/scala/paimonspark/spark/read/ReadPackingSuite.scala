package paimonspark.spark.read

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.connector.catalog.{Identifier, SupportsRead, TableCatalog}
import org.apache.spark.sql.connector.read.streaming.{ReadLimit, SupportsAdmissionControl}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.streaming.Trigger
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Reads pack many small buckets into few tasks (`source.split.target-size`), and give the same rows
 * packed and unpacked, for every table kind, merge engine and read mode. Each table has 4
 * partitions; the primary-key ones with fixed buckets 4 buckets each, so 16 buckets of a few rows.
 */
class ReadPackingSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark: SparkSession, _) = LocalSession.start("read-packing")
  private def sql(s: String): DataFrame = spark.sql(s)

  private val pk = "'primary-key' = 'p,id', 'bucket' = '4', 'write-only' = 'true'"
  private val kinds: Seq[(String, String)] = Seq(
    "append" -> "'bucket' = '-1'",
    "dedup" -> pk,
    // One merge engine beside deduplicate: packing hands every engine the same key ranges to merge.
    "partial" -> s"$pk, 'merge-engine' = 'partial-update', 'changelog-producer' = 'input'")

  override def beforeAll(): Unit = kinds.foreach { case (t, props) =>
    sql(s"CREATE TABLE paimon.default.$t (p INT, id INT, v STRING, n BIGINT) PARTITIONED BY (p) TBLPROPERTIES ($props)")
    def insert(from: Int, until: Int, tag: String, n: Int): Unit =
      sql(s"INSERT INTO paimon.default.$t SELECT CAST(id % 4 AS INT), CAST(id AS INT), concat('$tag', id), $n " +
        s"FROM range($from, $until)")
    insert(0, 200, "a", 1)
    insert(100, 300, "b", 2)
    if (props.contains("primary-key")) sql(s"CALL paimon.sys.compact(table => 'default.$t')")
    insert(250, 350, "c", 3)
    if (!props.contains("merge-engine")) sql(s"DELETE FROM paimon.default.$t WHERE id % 7 = 0")
  }

  override def afterAll(): Unit = spark.stop()

  private def tasks(df: DataFrame): Int =
    df.queryExecution.executedPlan.collect { case s: BatchScanExec => s.inputPartitions.size }.sum

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  /** Every read mode of a table, as rows. */
  private def readModes(t: String): Seq[(String, () => Seq[String])] = {
    val name = s"paimon.default.$t"
    def table(options: (String, String)*) = spark.read.options(options.toMap).table(name)
    Seq(
      "batch" -> (() => rows(table())),
      "count" -> (() => rows(sql(s"SELECT count(*) FROM $name"))),
      "projected and filtered" -> (() => rows(sql(s"SELECT id, n FROM $name WHERE id > 120"))),
      "read-optimized" -> (() => rows(sql(s"SELECT * FROM paimon.default.`$t$$ro`"))),
      "audit log" -> (() => rows(sql(s"SELECT * FROM paimon.default.`$t$$audit_log`"))),
      "incremental delta" -> (() => rows(table("incremental-between" -> "1,4"))),
      "incremental diff" -> (() => rows(table("incremental-between" -> "1,4", "incremental-between-scan-mode" -> "diff"))),
      "audit log diff" -> (() => rows(spark.read.options(Map("incremental-between" -> "1,4",
        "incremental-between-scan-mode" -> "diff")).table(s"paimon.default.`$t$$audit_log`"))),
      "changes" -> (() => rows(sql(s"SELECT * FROM $name CHANGES FROM VERSION 1 TO VERSION 4")))) ++
      // A stream's first read of the full state is the batch scan above; its changes are read otherwise. Streams
      // start slowly: one kind of files read as they are and one of key ranges merged is enough.
      (if (Set("append", "partial")(t))
        Seq("stream from snapshot 1" -> (() => streamed(t, "scan.mode" -> "from-snapshot", "scan.snapshot-id" -> "1")._1))
      else Nil)
  }

  /** The rows a stream of `t` reads with Trigger.AvailableNow, and the tasks of all it has to read, planned as one micro-batch. */
  private def streamed(t: String, options: (String, String)*): (Seq[String], Int) = {
    val sink = s"sink_${t}_${System.nanoTime()}"
    spark.readStream.options(options.toMap).table(s"paimon.default.$t").writeStream.format("memory")
      .queryName(sink).option("checkpointLocation", Files.createTempDirectory("ckpt").toString)
      .trigger(Trigger.AvailableNow()).start().awaitTermination()
    val table = spark.sessionState.catalogManager.catalog("paimon").asInstanceOf[TableCatalog]
      .loadTable(Identifier.of(Array("default"), t)).asInstanceOf[SupportsRead]
    val stream = table.newScanBuilder(new CaseInsensitiveStringMap(options.toMap.asJava)).build()
      .toMicroBatchStream(Files.createTempDirectory("stream").toString)
    val start = stream.initialOffset()
    val end = stream.asInstanceOf[SupportsAdmissionControl].latestOffset(start, ReadLimit.allAvailable())
    (rows(spark.table(sink)), stream.planInputPartitions(start, end).length)
  }

  private def unpacked[A](t: String)(read: => A): A = {
    sql(s"ALTER TABLE paimon.default.$t SET TBLPROPERTIES ('source.split.target-size' = '1')")
    try read finally sql(s"ALTER TABLE paimon.default.$t UNSET TBLPROPERTIES ('source.split.target-size')")
  }

  kinds.foreach { case (t, _) =>
    test(s"$t: every read mode gives the same rows packed and one piece per task") {
      val modes = readModes(t)
      val packed = modes.map { case (mode, read) => mode -> read() }
      val single = unpacked(t)(modes.map { case (mode, read) => mode -> read() })
      packed.zip(single).foreach { case ((mode, p), (_, s)) =>
        assert(p == s, s"$t, $mode")
        assert(p.nonEmpty, s"$t, $mode read nothing")
      }
    }
  }

  test("a scan of many small files packs into tasks by size, within the bound the packing sets") {
    Seq("append", "dedup", "partial").foreach { t =>
      val files = sql(s"SELECT count(*) FROM paimon.default.`$t$$files`").head().getLong(0)
      def scanTasks = tasks(spark.table(s"paimon.default.$t"))
      // With the layouts Spark ignores, primary-key scans pack across buckets too.
      val (packedTasks, singleTasks) = withoutLayouts((scanTasks, unpacked(t)(scanTasks)))
      // One session core: the split size is the 128 mb target, and 31 pieces of 4 mb + a few KB fit one task.
      // Files read as they are and key ranges to merge are packed apart: one part-filled task each at most.
      assert(packedTasks <= math.ceil(files / 31.0).toInt + 1, s"$t: $packedTasks tasks for $files files")
      assert(singleTasks >= 4 && packedTasks * 4 <= singleTasks, s"$t: $packedTasks packed, $singleTasks single")
      // A primary-key scan that reports its bucket layout packs each of the 4 buckets apart.
      val partFilled = if (t == "append") 0 else 2 * 4
      assert(scanTasks <= packedTasks + partFilled, s"$t: $scanTasks tasks keyed by bucket, $packedTasks packed")
    }
  }

  private def withoutLayouts[A](read: => A): A = {
    spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
    try read finally spark.conf.unset("spark.sql.sources.v2.bucketing.enabled")
  }

  test("a micro-batch of change files packs them into tasks by size") {
    val (packedRows, packedTasks) = streamed("dedup", "scan.mode" -> "from-snapshot", "scan.snapshot-id" -> "1")
    val (singleRows, singleTasks) = unpacked("dedup")(streamed("dedup", "scan.mode" -> "from-snapshot",
      "scan.snapshot-id" -> "1"))
    assert(packedRows == singleRows)
    // Each change file is a piece; 31 of them fill a task.
    assert(singleTasks >= 16 && packedTasks == math.ceil(singleTasks / 31.0).toInt, s"$packedTasks packed, $singleTasks single")
  }

  test("files read as they are are cut across tasks where no merge needs them whole") {
    sql("CREATE TABLE paimon.default.big (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql("INSERT INTO paimon.default.big SELECT CAST(id AS INT), sha2(CAST(id AS STRING), 256) FROM range(5000)")
    sql("CALL paimon.sys.compact(table => 'default.big')")
    val file = sql("SELECT file_size_in_bytes FROM paimon.default.`big$files`").collect().map(_.getLong(0)).toSeq
    assert(file.size == 1 && file.head > 150000, s"one compacted file of more than 150 KB: $file")
    val cut = spark.read.options(Map("source.split.target-size" -> "64 kb", "source.split.open-file-cost" -> "1 kb"))
      .table("paimon.default.`big$ro`")
    assert(tasks(cut) >= 3)
    assert(rows(cut) == rows(spark.table("paimon.default.big")))
  }

  test("the split options given to one read or in SQL override the table's, and bad values are refused") {
    val packed = tasks(spark.table("paimon.default.dedup"))
    val single = tasks(spark.read.option("source.split.target-size", "1").table("paimon.default.dedup"))
    val withClause = tasks(sql("SELECT * FROM paimon.default.dedup WITH ('source.split.open-file-cost' = '1 gb')"))
    assert(single >= 16 && withClause == single && packed * 4 <= single, s"$packed packed, $single and $withClause single")
    val e = intercept[Exception](sql("ALTER TABLE paimon.default.dedup SET TBLPROPERTIES ('source.split.target-size' = '0')"))
    assert(e.getMessage.contains("source.split.target-size") && e.getMessage.contains("positive"))
  }
}
