package paimonspark.fs

import java.net.{HttpURLConnection, URI}
import org.apache.hadoop.conf.Configuration

import paimonspark.{Checkout, Loopback}

/**
 * A real S3 API for tests: the moto server installed in the project's .venv (`moto[server]`), run by
 * `tests/support/serialized_moto.py` (one request at a time, so that conditional writes are decided
 * atomically, as S3 decides them), listening on 127.0.0.1 at a free port until [[stop]].
 */
final class MotoServer private (process: Process, val port: Int) {
  val endpoint = s"http://127.0.0.1:$port"

  /** Creates a bucket (moto checks no signature, so a plain path-style PUT does). */
  def createBucket(name: String): Unit = {
    val http = URI.create(s"$endpoint/$name").toURL.openConnection().asInstanceOf[HttpURLConnection]
    http.setRequestMethod("PUT")
    http.setFixedLengthStreamingMode(0)
    http.setDoOutput(true)
    http.getOutputStream.close()
    require(http.getResponseCode == 200, s"moto refused bucket $name: HTTP ${http.getResponseCode}")
  }

  /**
   * Makes the next `count` conditional PUTs to objects under `s3a://bucket/prefix` get `status`, answers a server
   * handling one request at a time never gives by itself: 409 ConditionalRequestConflict (another conditional write to
   * the name in flight) or 501 NotImplemented (a store without If-None-Match). See `tests/support/serialized_moto.py`.
   */
  def answerConditionalPuts(bucket: String, prefix: String, status: Int, count: Int): Unit =
    control(s"${answersQuery(bucket, prefix)}&status=$status&count=$count", "POST")

  /** How many of the answers [[answerConditionalPuts]] asked for are left. */
  def conditionalPutAnswersLeft(bucket: String, prefix: String): Int = control(answersQuery(bucket, prefix), "GET")

  private def answersQuery(bucket: String, prefix: String) =
    s"path=${java.net.URLEncoder.encode(s"/$bucket/$prefix", "UTF-8")}"

  private def control(query: String, method: String): Int = {
    val http = URI.create(s"$endpoint/moto-tests/conditional-puts?$query").toURL.openConnection().asInstanceOf[HttpURLConnection]
    http.setRequestMethod(method)
    val in = http.getInputStream
    try new String(in.readAllBytes(), "UTF-8").trim.toInt finally in.close()
  }

  /** S3A's settings for this server, as the tests and the docs set them (short retries: it is local). */
  val s3aSettings: Seq[(String, String)] = Seq("fs.s3a.endpoint" -> endpoint, "fs.s3a.path.style.access" -> "true",
    "fs.s3a.endpoint.region" -> "us-east-1", "fs.s3a.connection.ssl.enabled" -> "false", "fs.s3a.access.key" -> "test",
    "fs.s3a.secret.key" -> "test", "fs.s3a.retry.limit" -> "2", "fs.s3a.attempts.maximum" -> "2")

  /** A Hadoop configuration with [[s3aSettings]] and `extra`. */
  def s3aConf(extra: (String, String)*): Configuration = {
    val conf = new Configuration()
    (s3aSettings ++ extra).foreach { case (k, v) => conf.set(k, v) }
    conf
  }

  def stop(): Unit = {
    process.destroy()
    process.waitFor()
  }
}

object MotoServer {
  def start(): MotoServer = {
    val port = Loopback.freePort()
    val process = new ProcessBuilder(Checkout.python.toString, Checkout.support("serialized_moto.py").toString, "127.0.0.1",
      port.toString)
      .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
    val server = new MotoServer(process, port)
    Loopback.awaitStart(process, "moto_server", 60)(answers(server.endpoint))(s" on port $port")
    server
  }

  private def answers(endpoint: String): Boolean =
    try URI.create(endpoint + "/moto-api/").toURL.openConnection().asInstanceOf[HttpURLConnection].getResponseCode > 0
    catch { case _: java.io.IOException => false }
}
