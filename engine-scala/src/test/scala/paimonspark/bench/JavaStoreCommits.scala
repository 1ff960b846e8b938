package paimonspark.bench

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.io.StdIn

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes

import paimonspark.interop.JavaPaimon

/**
 * Apache Paimon's Java core committing to a store through its filesystem catalog, for `bench/object_store.py`
 * and `bench/storage.py`: the baseline our commits are held against. Catalog OPTIONS (`key=value`) reach the
 * store: Paimon's own S3 file I/O with `s3.*`, Hadoop's filesystems (GCS, ABFS, HDFS) with `hadoop.*`
 * settings. Prints one JSON line per result.
 *
 * usage: JavaStoreCommits WAREHOUSE race WRITERS COMMITS [OPTION...]
 *          writers in threads, each with its own catalog, append COMMITS one-row commits to one table
 *          at once; prints how many commits each was told succeeded and how many rows are visible.
 *        JavaStoreCommits WAREHOUSE steps [OPTION...]
 *          runs the step each line on stdin names (an append commit, a primary-key commit followed by a
 *          full compaction, a snapshot expiry, a scan's planning), printing {"step": ..., "ms": ...} when
 *          done, so that the caller can count the store's requests of each; ends at "end".
 */
object JavaStoreCommits {
  def main(args: Array[String]): Unit = {
    val warehouse = args(0)
    val options = args.drop(2).filter(_.contains("=")).map { o => val (k, v) = o.splitAt(o.indexOf('=')); k -> v.drop(1) }
    def catalog() = new JavaPaimon(warehouse, options.toMap)
    args(1) match {
      case "race" => race(catalog, args(2).toInt, args(3).toInt)
      case "steps" => steps(catalog())
    }
  }

  private def race(catalog: () => JavaPaimon, writers: Int, commits: Int): Unit = {
    val setup = catalog()
    setup.createTable("default.race", Schema.newBuilder().column("writer", DataTypes.INT())
      .column("seq", DataTypes.INT()).option("commit.max-retries", "200").build())
    val pool = Executors.newFixedThreadPool(writers)
    val start = new CountDownLatch(1)
    val results = (1 to writers).map { w =>
      pool.submit(() => {
        val java = catalog()
        start.await()
        val ok = (1 to commits).count { i =>
          try { java.insert("default.race", Seq(w, i)); true }
          catch { case _: Exception => false }
        }
        java.close()
        ok
      })
    }
    start.countDown()
    val reported = results.map(_.get(600, TimeUnit.SECONDS))
    pool.shutdown()
    val visible = setup.rows("default.race").size
    println(s"""{"writers": $writers, "commits_each": $commits, "reported_ok": ${reported.sum}, """ +
      s""""visible_rows": $visible, "snapshots": ${setup.latestId("default.race").getOrElse(0L)}}""")
    setup.close()
  }

  private def steps(java: JavaPaimon): Unit = {
    java.createTable("default.log", Schema.newBuilder().column("id", DataTypes.INT()).build())
    java.createTable("default.pk", Schema.newBuilder().column("id", DataTypes.INT().notNull())
      .column("v", DataTypes.STRING()).primaryKey("id").option("bucket", "1").build())
    java.insert("default.log", Seq(0))
    java.insert("default.pk", Seq(0, "v"))
    println("""{"ready": true}""")
    var step = StdIn.readLine()
    while (step != null && step != "end") {
      val started = System.nanoTime()
      step match {
        case "append" => java.insert("default.log", Seq(1))
        case "primary-key with compaction" => java.insert("default.pk", Seq(1, "a")); java.compact("default.pk")
        case "expiry" => java.expire("default.log", retainMax = 1, retainMin = 1)
        case "scan planning" => java.table("default.pk").newReadBuilder().newScan().plan()
      }
      println(s"""{"step": "$step", "ms": ${(System.nanoTime() - started) / 1e6}}""")
      step = StdIn.readLine()
    }
    java.close()
  }
}
