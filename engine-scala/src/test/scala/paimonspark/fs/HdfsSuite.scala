package paimonspark.fs

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hdfs.MiniDFSCluster
import org.apache.spark.sql.{SQLContext, SparkSession}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.catalog.MetastoreServer
import paimonspark.interop.JavaPaimon
import paimonspark.spark.LocalSession

/**
 * A real single-node HDFS (Hadoop 3.5.0's own name node and data node, `hadoop-client-minicluster`,
 * on 127.0.0.1): snapshots published by HDFS's rename, which fails atomically when the target exists;
 * tables written, compacted, streamed into with their checkpoint on HDFS, reached through an HA
 * nameservice as `hdfs-site.xml` names one, and through a Hive Metastore catalog; Paimon's Java core
 * reads each.
 */
class HdfsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val cluster: MiniDFSCluster = {
    val conf = new Configuration()
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createTempDirectory("hdfs").toString)
    Seq("dfs.namenode.http-address", "dfs.datanode.address", "dfs.datanode.http.address", "dfs.datanode.ipc.address")
      .foreach(conf.set(_, "127.0.0.1:0"))
    new MiniDFSCluster.Builder(conf).numDataNodes(1).build()
  }
  private lazy val root = s"hdfs://127.0.0.1:${cluster.getNameNodePort}"
  /** A client's HA nameservice over the one name node, as an `hdfs-site.xml` (HADOOP_CONF_DIR) would give it. */
  private lazy val nameservice = Seq("dfs.nameservices" -> "paimonns", "dfs.ha.namenodes.paimonns" -> "nn1",
    "dfs.namenode.rpc-address.paimonns.nn1" -> s"127.0.0.1:${cluster.getNameNodePort}",
    "dfs.client.failover.proxy.provider.paimonns" ->
      "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider")
  private lazy val metastore = MetastoreServer.start()
  private lazy val spark: SparkSession = LocalSession.onWarehouse("hdfs", s"$root/warehouse",
    nameservice.map { case (k, v) => s"spark.hadoop.$k" -> v } ++ Seq(
      "spark.sql.catalog.ns" -> classOf[paimonspark.spark.PaimonCatalog].getName,
      "spark.sql.catalog.ns.warehouse" -> "hdfs://paimonns/ns-warehouse",
      "spark.sql.catalog.hive" -> classOf[paimonspark.spark.PaimonCatalog].getName,
      "spark.sql.catalog.hive.warehouse" -> s"$root/hive-warehouse",
      "spark.sql.catalog.hive.metastore" -> "hive", "spark.sql.catalog.hive.uri" -> metastore.uri): _*)

  override def afterAll(): Unit = {
    spark.stop()
    metastore.stop()
    cluster.shutdown()
  }

  private def rows(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))

  private def javaRows(warehouse: String, table: String, options: Map[String, String] = Map.empty): Seq[Seq[Any]] = {
    val java = new JavaPaimon(warehouse, options)
    try java.rows(table) finally java.close()
  }

  test("racing writers on HDFS: exactly one wins each name, by rename") {
    val io = new FileIO(new HadoopConf(cluster.getConfiguration(0)))
    val pool = Executors.newFixedThreadPool(4)
    try (1 to 5).foreach { round =>
      val target = new Path(s"$root/race/snapshot/snapshot-$round")
      val start = new CountDownLatch(1)
      val attempts = (1 to 4).map(w => pool.submit(() => { start.await(); io.publish(target, s"w$w".getBytes(UTF_8)) }))
      start.countDown()
      assert(attempts.count(_.get(60, TimeUnit.SECONDS)) == 1, s"round $round")
      assert(io.list(target.getParent).map(_.getPath.getName).sorted == (1 to round).map(i => s"snapshot-$i").sorted)
    } finally pool.shutdownNow()
  }

  test("a primary-key table on HDFS is written, compacted, time travelled, and read by Paimon's Java core") {
    spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql("INSERT INTO paimon.default.t VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO paimon.default.t VALUES (2, 'B'), (3, 'c')")
    spark.sql("CALL paimon.sys.compact(table => 'default.t')").collect()
    assert(rows("SELECT * FROM paimon.default.t") == Seq(Seq(1, "a"), Seq(2, "B"), Seq(3, "c")))
    assert(rows("SELECT * FROM paimon.default.t VERSION AS OF 1") == Seq(Seq(1, "a"), Seq(2, "b")))
    val snapshots = new Path(s"$root/warehouse/default.db/t/snapshot")
    val io = new FileIO(new HadoopConf(cluster.getConfiguration(0)))
    assert(io.list(snapshots).map(_.getPath.getName).count(_.startsWith("snapshot-")) == 3)
    assert(javaRows(s"$root/warehouse", "default.t") == Seq(Seq(1, "a"), Seq(2, "B"), Seq(3, "c")))
  }

  test("a streaming sink on HDFS, its checkpoint there too, restarted exactly once") {
    implicit val context: SQLContext = spark.sqlContext
    import spark.implicits._
    spark.sql("CREATE TABLE paimon.default.streamed (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    val input = MemoryStream[(Int, String)]
    def run(batches: Seq[(Int, String)]*): Unit = {
      val query = input.toDF().toDF("k", "v").writeStream.format("paimon")
        .option("checkpointLocation", s"$root/checkpoints/streamed").toTable("paimon.default.streamed")
      try batches.foreach { b => input.addData(b); query.processAllAvailable() } finally query.stop()
    }
    run(Seq(1 -> "a", 2 -> "b"), Seq(2 -> "B"))
    run(Seq(3 -> "c"))
    assert(rows("SELECT * FROM paimon.default.streamed") == Seq(Seq(1, "a"), Seq(2, "B"), Seq(3, "c")))
    assert(rows("SELECT count(*) FROM paimon.default.`streamed$snapshots`") == Seq(Seq(3L)))
  }

  test("a warehouse on an HA nameservice (hdfs://paimonns), as the Hadoop configuration names it") {
    spark.sql("CREATE TABLE ns.default.logs (id INT, dt STRING) PARTITIONED BY (dt)")
    spark.sql("INSERT INTO ns.default.logs VALUES (1, 'd1'), (2, 'd2')")
    spark.sql("INSERT INTO ns.default.logs VALUES (3, 'd1')")
    assert(rows("SELECT * FROM ns.default.logs") == Seq(Seq(1, "d1"), Seq(2, "d2"), Seq(3, "d1")))
    assert(javaRows("hdfs://paimonns/ns-warehouse", "default.logs", nameservice.map { case (k, v) => s"hadoop.$k" -> v }.toMap) ==
      Seq(Seq(1, "d1"), Seq(2, "d2"), Seq(3, "d1")))
  }

  test("a Hive Metastore catalog whose warehouse is on HDFS") {
    spark.sql("CREATE DATABASE hive.lake")
    spark.sql("CREATE TABLE hive.lake.orders (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql("INSERT INTO hive.lake.orders VALUES (1, 'a'), (2, 'b')")
    spark.sql("UPDATE hive.lake.orders SET v = 'B' WHERE id = 2")
    assert(rows("SELECT * FROM hive.lake.orders") == Seq(Seq(1, "a"), Seq(2, "B")))
    val location = new org.apache.hadoop.hive.metastore.HiveMetaStoreClient(metastore.clientConf)
    try assert(location.getTable("lake", "orders").getSd.getLocation == s"$root/hive-warehouse/lake.db/orders")
    finally location.close()
    assert(javaRows(s"$root/hive-warehouse", "lake.orders", Map("metastore" -> "hive", "uri" -> metastore.uri)) ==
      Seq(Seq(1, "a"), Seq(2, "B")))
  }
}
