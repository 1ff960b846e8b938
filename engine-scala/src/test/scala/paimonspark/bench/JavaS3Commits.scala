package paimonspark.bench

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.io.StdIn

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes

import paimonspark.interop.JavaPaimon

/**
 * Apache Paimon's Java core committing to S3 through its filesystem catalog and its own S3 file I/O
 * (`paimon-s3`), for `bench/object_store.py`: the baseline our conditional-write commits are held
 * against. Prints one JSON line per result.
 *
 * usage: JavaS3Commits ENDPOINT WAREHOUSE race WRITERS COMMITS
 *          writers in threads, each with its own catalog, append COMMITS one-row commits to one table
 *          at once; prints how many commits each was told succeeded and how many rows are visible.
 *        JavaS3Commits ENDPOINT WAREHOUSE steps
 *          an append commit, a primary-key commit followed by a full compaction, and a snapshot
 *          expiry, each after a line on stdin, printing {"step": ...} when done, so that the caller
 *          can count the store's requests of each.
 */
object JavaS3Commits {
  def main(args: Array[String]): Unit = {
    val (endpoint, warehouse) = (args(0), args(1))
    def catalog() = new JavaPaimon(warehouse, Map("s3.endpoint" -> endpoint, "s3.endpoint.region" -> "us-east-1",
      "s3.access-key" -> "test", "s3.secret-key" -> "test", "s3.path-style-access" -> "true"))
    args(2) match {
      case "race" => race(catalog, args(3).toInt, args(4).toInt)
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
    def step(name: String)(run: => Unit): Unit = {
      StdIn.readLine()
      run
      println(s"""{"step": "$name"}""")
    }
    step("append")(java.insert("default.log", Seq(1)))
    step("primary-key with compaction") { java.insert("default.pk", Seq(1, "a")); java.compact("default.pk") }
    step("expiry")(java.expire("default.log", retainMax = 1, retainMin = 1))
    java.close()
  }
}
