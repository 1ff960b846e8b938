package paimonspark.fs

import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{SQLContext, SparkSession}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.interop.JavaPaimon
import paimonspark.spark.LocalSession

/**
 * Warehouses on Google Cloud Storage (gcs-connector against fake-gcs-server) and Azure Blob storage
 * (ABFS against Azurite), one session with a catalog on each: tables written, compacted, time
 * travelled, streamed into with their checkpoints on the store, and read by Paimon's Java core.
 */
class GcsAndAzureTablesSuite extends AnyFunSuite with BeforeAndAfterAll {
  // Each store or session that started is stopped in afterAll, whatever the others did: one that
  // fails to start must not leave another's server listening.
  private val stops = scala.collection.mutable.ArrayBuffer.empty[() => Unit]
  private def started[T](value: T)(stop: T => Unit): T = { stops += (() => stop(value)); value }
  private lazy val gcs = started(FakeGcs.start())(_.stop())
  private lazy val azure = started(Azurite.start())(_.stop())
  private lazy val stores = Seq("gcs" -> gcs, "azure" -> azure)
  private lazy val spark: SparkSession = {
    val catalogs = Seq("spark.sql.catalog.azure" -> classOf[paimonspark.spark.PaimonCatalog].getName,
      "spark.sql.catalog.azure.warehouse" -> azure.uri("wh"))
    started(LocalSession.onWarehouse("gcs-and-azure", gcs.uri("wh"),
      (gcs.settings ++ azure.settings).map { case (k, v) => s"spark.hadoop.$k" -> v } ++ catalogs: _*))(_.stop())
  }
  private def catalog(store: String) = if (store == "gcs") "paimon" else "azure"

  override def afterAll(): Unit =
    stops.reverseIterator.map(stop => scala.util.Try(stop())).toList.collectFirst { case scala.util.Failure(e) => throw e }

  private def rows(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))

  test("a primary-key table on each store is upserted, compacted, time travelled, and read by Paimon's Java core") {
    stores.foreach { case (name, store) =>
      val t = s"${catalog(name)}.default.pk"
      spark.sql(s"CREATE TABLE $t (id INT, v STRING, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES " +
        "('primary-key' = 'id,dt', 'bucket' = '2')")
      spark.sql(s"INSERT INTO $t VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
      spark.sql(s"INSERT INTO $t VALUES (2, 'B', 'd1'), (4, 'd', 'd2')")
      spark.sql(s"DELETE FROM $t WHERE id = 3")
      spark.sql(s"CALL ${catalog(name)}.sys.compact(table => 'default.pk')").collect()
      val now = rows(s"SELECT * FROM $t")
      assert(now == Seq(Seq(1, "a", "d1"), Seq(2, "B", "d1"), Seq(4, "d", "d2")), name)
      assert(rows(s"SELECT * FROM $t VERSION AS OF 1") == Seq(Seq(1, "a", "d1"), Seq(2, "b", "d1"), Seq(3, "c", "d2")))
      assert(spark.sql(s"SELECT commit_kind FROM ${catalog(name)}.default.`pk$$snapshots` ORDER BY snapshot_id")
        .collect().map(_.getString(0)).toSeq == Seq("APPEND", "APPEND", "APPEND", "COMPACT"), name)
      val java = new JavaPaimon(store.uri("wh"), store.settings.map { case (k, v) => s"hadoop.$k" -> v }.toMap)
      try assert(java.rows("default.pk") == now, name) finally java.close()
    }
  }

  test("a streaming sink on each store, its checkpoint there too, restarted exactly once") {
    implicit val context: SQLContext = spark.sqlContext
    import spark.implicits._
    stores.foreach { case (name, store) =>
      val t = s"${catalog(name)}.default.streamed"
      spark.sql(s"CREATE TABLE $t (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
      val checkpoint = store.uri("checkpoints/streamed")
      val input = MemoryStream[(Int, String)]
      def run(batches: Seq[(Int, String)]*): Unit = {
        val query = input.toDF().toDF("k", "v").writeStream.format("paimon").option("checkpointLocation", checkpoint)
          .toTable(t)
        try batches.foreach { b => input.addData(b); query.processAllAvailable() } finally query.stop()
      }
      run(Seq(1 -> "a", 2 -> "b"), Seq(2 -> "B"))
      // Restarted from its checkpoint: the two batches it committed are not written again.
      run(Seq(3 -> "c"))
      assert(rows(s"SELECT * FROM $t") == Seq(Seq(1, "a"), Seq(2, "B"), Seq(3, "c")), name)
      assert(rows(s"SELECT count(*) FROM ${catalog(name)}.default.`streamed$$snapshots`") == Seq(Seq(3L)), name)
    }
  }

  test("an empty snapshot a stopped writer left on Azure: readers skip it, a commit names it, orphan cleanup removes it") {
    spark.sql("CREATE TABLE azure.default.stopped (id INT) TBLPROPERTIES ('commit.max-retries' = '2')")
    spark.sql("INSERT INTO azure.default.stopped VALUES (1)")
    val io = new FileIO(new HadoopConf(azure.conf()))
    val empty = new Path(azure.uri("wh/default.db/stopped/snapshot/snapshot-2"))
    io.writeBytes(empty, Array.emptyByteArray)
    assert(rows("SELECT * FROM azure.default.stopped") == Seq(Seq(1)))
    assert(rows("SELECT snapshot_id FROM azure.default.`stopped$snapshots`") == Seq(Seq(1L)))
    val error = intercept[Exception](spark.sql("INSERT INTO azure.default.stopped VALUES (2)"))
    assert(error.getMessage.contains(s"$empty is empty"), error.getMessage)
    val now = LocalDateTime.now().plusSeconds(1).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
    Thread.sleep(1100)
    spark.sql(s"CALL azure.sys.remove_orphan_files(table => 'default.stopped', older_than => '$now')").collect()
    assert(!io.exists(empty))
    spark.sql("INSERT INTO azure.default.stopped VALUES (2)")
    assert(rows("SELECT * FROM azure.default.stopped") == Seq(Seq(1), Seq(2)))
  }
}
