package paimonspark.spark.system

import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.CorruptFileException
import paimonspark.spark.LocalSession

/**
 * `ORDER BY ... LIMIT` and the columns read are applied by a system table when Spark pushes them: the
 * same rows as Spark's own sort gives, and no sort or projection left in the plan.
 */
class SystemTableTopNSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("system-topn")
  private val snapshots = "paimon.default.`t$snapshots`"

  override def beforeAll(): Unit = {
    spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    (1 to 4).foreach(i => spark.sql(s"INSERT INTO paimon.default.t VALUES ($i, 'v$i')"))
    spark.sql("CALL paimon.sys.compact(table => 'default.t')").collect()
  }

  override def afterAll(): Unit = spark.stop()

  private def sorts(df: DataFrame): Seq[String] = df.queryExecution.sparkPlan.collect {
    case p if Set("SortExec", "TakeOrderedAndProjectExec").contains(p.getClass.getSimpleName) => p.nodeName
  }

  private def ids(df: DataFrame): Seq[Long] = df.collect().map(_.getLong(0)).toSeq

  test("ORDER BY a column LIMIT n is applied by the table, with no sort left to Spark") {
    val latest = spark.sql(s"SELECT snapshot_id FROM $snapshots ORDER BY snapshot_id DESC LIMIT 2")
    assert(ids(latest) == Seq(5L, 4L))
    assert(sorts(latest).isEmpty, latest.queryExecution.sparkPlan.treeString)
    // Only the column asked for is returned: the plan is a bare local scan, collected without a job.
    assert(latest.queryExecution.sparkPlan.nodeName == "LocalTableScan", latest.queryExecution.sparkPlan.treeString)
    assert(latest.schema.fieldNames.toSeq == Seq("snapshot_id"))
    val byKind = spark.sql(s"SELECT snapshot_id FROM $snapshots ORDER BY commit_kind ASC, snapshot_id DESC LIMIT 3")
    assert(ids(byKind) == Seq(4L, 3L, 2L))  // APPEND (newest first) before COMPACT
    assert(sorts(byKind).isEmpty)
    assert(ids(spark.sql(s"SELECT snapshot_id FROM $snapshots ORDER BY snapshot_id LIMIT 2")) == Seq(1L, 2L))
  }

  test("the latest snapshots are read without reading the older snapshot files") {
    spark.sql("CREATE TABLE paimon.default.old (id INT)")
    (1 to 3).foreach(i => spark.sql(s"INSERT INTO paimon.default.old VALUES ($i)"))
    // A damaged oldest snapshot file: any read of it fails, so a query that succeeds did not read it.
    Files.writeString(warehouse.resolve("default.db/old/snapshot/snapshot-1"), "{\"version\": 3, \"id\"")
    val latest = spark.sql("SELECT snapshot_id FROM paimon.default.`old$snapshots` ORDER BY snapshot_id DESC LIMIT 2")
    assert(ids(latest) == Seq(3L, 2L))
    val all = intercept[Exception](spark.sql("SELECT snapshot_id FROM paimon.default.`old$snapshots`").collect())
    assert(Iterator.iterate[Throwable](all)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[CorruptFileException]))
  }

  test("with a filter or an expression to sort by, Spark sorts, with the same result") {
    val filtered = spark.sql(s"SELECT snapshot_id FROM $snapshots WHERE snapshot_id < 5 ORDER BY snapshot_id DESC LIMIT 2")
    assert(ids(filtered) == Seq(4L, 3L))
    assert(sorts(filtered).nonEmpty)
    val computed = spark.sql(s"SELECT snapshot_id FROM $snapshots ORDER BY -snapshot_id LIMIT 1")
    assert(ids(computed) == Seq(5L))
    assert(sorts(computed).nonEmpty)
  }
}
