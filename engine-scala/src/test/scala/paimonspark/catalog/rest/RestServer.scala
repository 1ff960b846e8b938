package paimonspark.catalog.rest

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._

import paimonspark.{Checkout, Loopback}

/**
 * Apache Paimon's own REST catalog server in a child JVM on 127.0.0.1 until [[stop]]:
 * `tests/support/LoopbackRestCatalog.java`, run by Java's source launcher on the jars `make test` resolves
 * (`restOracle/writeClasspath`), as the pytest suites start it. Its files are under `dir/data`; it answers
 * the catalog name `warehouse` and takes the bearer token `token`.
 */
final class RestServer private (process: Process, val url: String, val dir: Path, val warehouse: String,
    val token: String) {
  /** The options of a catalog of Spark's or Java's over this server. */
  def catalogOptions: Map[String, String] =
    Map("metastore" -> "rest", "uri" -> url, "warehouse" -> warehouse, "token.provider" -> "bear", "token" -> token)

  /** The requests it served, one `METHOD PATH STATUS` line each. */
  def requests: Seq[String] = {
    val source = scala.io.Source.fromFile(dir.resolve("server.log").toFile)
    try source.getLines().filter(_.matches("(GET|POST|DELETE|PUT|HEAD) .*")).toList finally source.close()
  }

  /** The names of the headers of each request, in order. */
  def headerNames: Seq[Set[String]] = {
    val source = scala.io.Source.fromFile(dir.resolve("server.log").toFile)
    try source.getLines().collect { case l if l.startsWith("HEADERS ") => l.stripPrefix("HEADERS ").split(",").toSet }.toList
    finally source.close()
  }

  /** Makes the server refuse `db.table` from now on (403), as one that grants access per table would. */
  def deny(db: String, table: String): Unit = command(s"DENY $db.$table", s"DENIED $db.$table")

  /** Makes the storage credentials the server hands out for `db.table` `settings`, expiring at `expiresAtMillis`. */
  def setToken(db: String, table: String, expiresAtMillis: Long, settings: (String, String)*): Unit =
    command(s"TOKEN $db.$table $expiresAtMillis ${settings.map { case (k, v) => s"$k=$v" }.mkString(" ")}",
      s"TOKEN $db.$table")

  private var commands = 0

  /** Sends the launcher a line and waits for its `answer` to it (the n-th such answer for the n-th command). */
  private def command(line: String, answer: String): Unit = synchronized {
    commands += 1
    val out = process.getOutputStream
    out.write(s"$line\n".getBytes(java.nio.charset.StandardCharsets.UTF_8))
    out.flush()
    def answered = Files.readAllLines(dir.resolve("server.log")).asScala.count(l => l.startsWith("DENIED ") ||
      l.startsWith("TOKEN ")) >= commands
    Loopback.awaitStart(process, s"the server's answer to $line", 30)(answered)("")
  }

  def stop(): Unit = {
    process.getOutputStream.close()
    if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
  }
}

object RestServer {
  private val ClasspathFile = Checkout.root.resolve("target/rest-oracle.classpath")

  /**
   * A server with `defaults` in its `/v1/config` answer. One that hands out storage credentials
   * (`data-token.enabled=true`) gets its data path as a `file:` URI, so that Paimon's server names its tables'
   * paths `rest-test-file-io:/...` (the scheme of its test FileIO; [[TokenCheckedFileSystem]] here).
   */
  def start(warehouse: String = "rest_wh", token: String = "the-token", defaults: Map[String, String] = Map.empty)
      : RestServer = {
    if (!Files.isRegularFile(ClasspathFile)) {
      throw new IllegalStateException(s"$ClasspathFile is missing: run `build/sbt restOracle/writeClasspath` (make test does)")
    }
    val dir = Files.createTempDirectory("rest-catalog")
    val log = dir.resolve("server.log")
    val java = Path.of(sys.props("java.home"), "bin", "java").toString
    val command = Seq(java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
      s"${Files.readString(ClasspathFile).trim}:${Checkout.pysparkJars}/*", Checkout.support("LoopbackRestCatalog.java").toString,
      if (defaults.get(RestCatalog.DataToken).contains("true")) s"file:${dir.resolve("data")}" else dir.resolve("data").toString,
      warehouse, token) ++ defaults.map { case (k, v) => s"$k=$v" }
    val process = new ProcessBuilder(command: _*).redirectErrorStream(true).redirectOutput(log.toFile).start()
    def ready = """READY (\S+)""".r.findFirstMatchIn(Files.readString(log))
    Loopback.awaitStart(process, "the REST catalog server", 180)(ready.isDefined)(s":\n${Files.readString(log).takeRight(4000)}")
    new RestServer(process, ready.get.group(1), dir, warehouse, token)
  }
}
