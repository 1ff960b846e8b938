package paimonspark.catalog

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit

import org.apache.hadoop.hive.conf.HiveConf

import paimonspark.{Checkout, Loopback}

/**
 * A real Hive Metastore (Hive 2.3.10 from pyspark's jars, embedded Derby) in a child JVM, on 127.0.0.1 at a
 * free port until [[stop]]: `tests/support/LoopbackMetastore.java`, run by Java's source launcher, which the
 * pytest suites start the same way. Its warehouse is `dir/warehouse`.
 */
final class MetastoreServer private (process: Process, val port: Int, val dir: Path) {
  val uri = s"thrift://127.0.0.1:$port"
  /** The same metastore answering as a Hive 4 server, without the get_table call of Hive 2.3 clients. */
  lazy val hive4Uri: String = "thrift://127.0.0.1:" +
    """HIVE4 (\d+)""".r.findFirstMatchIn(Files.readString(dir.resolve("metastore.log"))).get.group(1)
  val warehouse: Path = dir.resolve("warehouse")

  /** A client's configuration for this server. */
  def clientConf: HiveConf = {
    val conf = new HiveConf()
    conf.set("hive.metastore.uris", uri)
    conf
  }

  def stop(): Unit = {
    process.destroy()
    if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
  }
}

object MetastoreServer {
  def start(): MetastoreServer = {
    val dir = Files.createTempDirectory("metastore")
    val conf = Files.createDirectories(dir.resolve("conf"))
    Files.writeString(conf.resolve("hive-site.xml"), hiveSite(dir))
    val port = Loopback.freePort()
    val log = dir.resolve("metastore.log")
    val java = Path.of(sys.props("java.home"), "bin", "java").toString
    // The client compiler alone and the serial collector: it serves one suite, not long enough to earn C2 back.
    val command = Seq(java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
      s"-Dderby.stream.error.file=${dir.resolve("derby.log")}", "-cp",
      s"$conf:${Checkout.pysparkJars}/*", Checkout.support("LoopbackMetastore.java").toString, port.toString)
    val process = new ProcessBuilder(command: _*).redirectErrorStream(true).redirectOutput(log.toFile).start()
    Loopback.awaitStart(process, "the metastore", 180)(Files.readString(log).contains("LISTENING"))(
      s" on port $port:\n${Files.readString(log).takeRight(4000)}")
    new MetastoreServer(process, port, dir)
  }

  /** Embedded Derby, schema created on first use; BoneCP, Hive's default pool, is not in pyspark's jars. */
  private def hiveSite(dir: Path): String = {
    val settings = Seq(
      "javax.jdo.option.ConnectionURL" -> s"jdbc:derby:;databaseName=${dir.resolve("metastore_db")};create=true",
      "hive.metastore.warehouse.dir" -> dir.resolve("warehouse").toUri.toString,
      "datanucleus.schema.autoCreateAll" -> "true",
      "hive.metastore.schema.verification" -> "false",
      "datanucleus.connectionPoolingType" -> "DBCP",
      "hive.metastore.try.direct.sql" -> "false",
      "hive.metastore.disallow.incompatible.col.type.changes" -> "false",
      "hive.async.log.enabled" -> "false")
    settings.map { case (k, v) => s"  <property><name>$k</name><value>$v</value></property>" }
      .mkString("<?xml version=\"1.0\"?>\n<configuration>\n", "\n", "\n</configuration>\n")
  }
}
