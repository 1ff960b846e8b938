package paimonspark.spark.write

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart, SparkListenerStageCompleted}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.{ListenerMarker, LocalSession}

/**
 * The buckets of a write to an unpartitioned table are tasks of their own
 * ([[PaimonWrite.advisoryPartitionSizeInBytes]]): adaptive execution would otherwise pack the shuffle
 * partitions of several buckets into one task, which then writes and compacts them one after another
 * while other cores sit idle. Partitioned tables keep Spark's packing.
 */
class BucketTasksSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, _) = LocalSession.start("bucket-tasks")

  override def beforeAll(): Unit = {
    // Partitions of any size count as large enough for a task of their own: only the advisory size packs them.
    spark.conf.set("spark.sql.adaptive.coalescePartitions.minPartitionSize", "1b")
    spark.conf.set("spark.sql.shuffle.partitions", "64")
  }

  override def afterAll(): Unit = spark.stop()

  /** The number of tasks of the last stage `run` ran: the write's own stage. */
  private def writeTasks(run: => Unit): Int = {
    val stages = new ConcurrentLinkedQueue[(Int, Int)]()
    @volatile var marked = false
    val listener = new SparkListener {
      override def onJobStart(start: SparkListenerJobStart): Unit =
        if (ListenerMarker.isMarker(start)) marked = true
      override def onStageCompleted(done: SparkListenerStageCompleted): Unit =
        if (!marked) stages.add(done.stageInfo.stageId -> done.stageInfo.numTasks)
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      run
      ListenerMarker.run(spark, marked)
    } finally spark.sparkContext.removeSparkListener(listener)
    stages.asScala.maxBy(_._1)._2
  }

  test("each bucket of a write to an unpartitioned primary-key table is a task of its own, where adaptive execution would pack them") {
    spark.sql("CREATE TABLE paimon.default.t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '8')")
    val tasks = writeTasks(spark.sql("INSERT INTO paimon.default.t SELECT id, CAST(id AS STRING) FROM range(8000)"))
    // Spark hashes a row's bucket into one of the 64 shuffle partitions; two buckets may share one.
    val partitions = spark.sql("SELECT count(DISTINCT pmod(hash(CAST(id AS INT)), 64)) FROM range(8)").head().getLong(0)
    assert(tasks == partitions)
    assert(spark.table("paimon.default.t").count() == 8000)
  }

  test("a write to a partitioned table keeps adaptive execution's packing of its (partition, bucket) pieces") {
    spark.sql("CREATE TABLE paimon.default.p (id BIGINT, part INT, v STRING) PARTITIONED BY (part) " +
      "TBLPROPERTIES ('primary-key' = 'part,id', 'bucket' = '8')")
    // local[1]: Spark packs the write's shuffle into one task a core.
    assert(writeTasks(spark.sql("INSERT INTO paimon.default.p SELECT id, CAST(id % 4 AS INT), 'v' FROM range(8000)")) == 1)
    assert(spark.table("paimon.default.p").count() == 8000)
  }
}
