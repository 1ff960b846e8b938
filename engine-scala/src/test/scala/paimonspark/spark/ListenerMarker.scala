package paimonspark.spark

import org.apache.spark.scheduler.SparkListenerJobStart
import org.apache.spark.sql.SparkSession

/**
 * A job run to know a Spark listener has caught up: one listener sees events in order, so once it saw
 * this job start, it saw every event of the jobs before.
 */
object ListenerMarker {
  val Description = "marker"

  def isMarker(start: SparkListenerJobStart): Boolean =
    Option(start.properties).exists(_.getProperty("spark.job.description") == Description)

  /** Runs the marker job and waits, at most 30 s, until `seen` says the listener saw it start. */
  def run(spark: SparkSession, seen: => Boolean): Unit = {
    spark.sparkContext.setJobDescription(Description)
    spark.sparkContext.parallelize(1 to 1, 1).count()
    spark.sparkContext.setJobDescription(null)
    val deadline = System.nanoTime() + 30e9.toLong
    while (!seen && System.nanoTime() < deadline) Thread.sleep(20)
    assert(seen, "the listener did not see the marker job start within 30 s")
  }
}
