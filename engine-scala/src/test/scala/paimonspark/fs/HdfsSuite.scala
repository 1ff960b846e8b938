package paimonspark.fs

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hdfs.MiniDFSCluster
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * A real single-node HDFS (Hadoop 3.5.0's own name node and data node, `hadoop-client-minicluster`,
 * on 127.0.0.1): tables written and read there, and snapshots published by HDFS's rename, which
 * fails atomically when the target exists.
 */
class HdfsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val cluster: MiniDFSCluster = {
    val conf = new Configuration()
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createTempDirectory("hdfs").toString)
    Seq("dfs.namenode.http-address", "dfs.datanode.address", "dfs.datanode.http.address", "dfs.datanode.ipc.address")
      .foreach(conf.set(_, "127.0.0.1:0"))
    new MiniDFSCluster.Builder(conf).numDataNodes(1).build()
  }

  override def afterAll(): Unit = cluster.shutdown()

  test("racing writers on HDFS: exactly one wins each name, by rename") {
    val io = new FileIO(new HadoopConf(cluster.getConfiguration(0)))
    val pool = Executors.newFixedThreadPool(4)
    try (1 to 5).foreach { round =>
      val target = new Path(cluster.getURI.toString + s"/race/snapshot/snapshot-$round")
      val start = new CountDownLatch(1)
      val attempts = (1 to 4).map(w => pool.submit(() => { start.await(); io.publish(target, s"w$w".getBytes(UTF_8)) }))
      start.countDown()
      assert(attempts.count(_.get(60, TimeUnit.SECONDS)) == 1, s"round $round")
      assert(io.list(target.getParent).map(_.getPath.getName).sorted == (1 to round).map(i => s"snapshot-$i").sorted)
    } finally pool.shutdownNow()
  }

  test("a primary-key table on HDFS is written, compacted, time travelled and read") {
    val conf = cluster.getConfiguration(0)
    val spark = LocalSession.onWarehouse("hdfs", cluster.getURI.toString + "/warehouse",
      "spark.hadoop.fs.defaultFS" -> conf.get("fs.defaultFS"))
    try {
      spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
      spark.sql("INSERT INTO paimon.default.t VALUES (1, 'a'), (2, 'b')")
      spark.sql("INSERT INTO paimon.default.t VALUES (2, 'B'), (3, 'c')")
      spark.sql("CALL paimon.sys.compact(table => 'default.t')").collect()
      def rows(q: String) = spark.sql(q).collect().map(r => (r.getInt(0), r.getString(1))).toSeq.sortBy(_._1)
      assert(rows("SELECT * FROM paimon.default.t") == Seq(1 -> "a", 2 -> "B", 3 -> "c"))
      assert(rows("SELECT * FROM paimon.default.t VERSION AS OF 1") == Seq(1 -> "a", 2 -> "b"))
      val snapshots = new Path(cluster.getURI.toString + "/warehouse/default.db/t/snapshot")
      assert(new FileIO(new HadoopConf(conf)).list(snapshots).map(_.getPath.getName).count(_.startsWith("snapshot-")) == 3)
    } finally spark.stop()
  }
}
