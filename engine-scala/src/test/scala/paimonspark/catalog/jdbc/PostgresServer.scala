package paimonspark.catalog.jdbc

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit

import paimonspark.Loopback

/**
 * A real PostgreSQL server from the Debian packages (`/usr/lib/postgresql/<version>/bin`), in a cluster of its
 * own under a temporary directory, listening on 127.0.0.1 only at a free port, until [[stop]]. PostgreSQL
 * refuses to run as root: under root it runs as the `postgres` account the packages create (`runuser`).
 */
final class PostgresServer private (process: Process, port: Int, val dir: Path) {
  val user = "paimon"
  val password = "paimon-test"
  val url = s"jdbc:postgresql://127.0.0.1:$port/postgres"

  def stop(): Unit = {
    process.destroy()
    if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
  }
}

object PostgresServer {
  private lazy val bin: Option[Path] = Option(Path.of("/usr/lib/postgresql").toFile.listFiles()).toSeq.flatten
    .map(_.toPath.resolve("bin")).filter(b => Files.isExecutable(b.resolve("postgres"))).sortBy(_.toString).lastOption
  private val root = System.getProperty("user.name") == "root"

  def installed: Boolean = bin.isDefined && (!root || new ProcessBuilder("id", "postgres").start().waitFor() == 0)

  private def asOwner(command: String*): Seq[String] = if (root) Seq("runuser", "-u", "postgres", "--") ++ command else command

  def start(): PostgresServer = {
    val dir = Files.createTempDirectory("postgres")
    val data = dir.resolve("data")
    if (root) new ProcessBuilder("chown", "-R", "postgres", dir.toString).inheritIO().start().waitFor()
    val password = dir.resolve("password")
    Files.writeString(password, "paimon-test\n")
    if (root) new ProcessBuilder("chown", "postgres", password.toString).start().waitFor()
    val init = new ProcessBuilder(asOwner(bin.get.resolve("initdb").toString, "-D", data.toString, "-U", "paimon",
      "--pwfile", password.toString, "-A", "scram-sha-256", "--no-sync"): _*).redirectErrorStream(true)
      .redirectOutput(dir.resolve("initdb.log").toFile).start()
    if (init.waitFor() != 0) throw new IllegalStateException(s"initdb failed:\n${Files.readString(dir.resolve("initdb.log"))}")
    val port = Loopback.freePort()
    val log = dir.resolve("postgres.log")
    val process = new ProcessBuilder(asOwner(bin.get.resolve("postgres").toString, "-D", data.toString, "-h", "127.0.0.1",
      "-p", port.toString, "-k", dir.toString, "-c", "fsync=off"): _*).redirectErrorStream(true).redirectOutput(log.toFile)
      .start()
    Loopback.awaitStart(process, "PostgreSQL", 60)(Files.readString(log).contains("ready to accept connections"))(
      s":\n${Files.readString(log).takeRight(4000)}")
    new PostgresServer(process, port, dir)
  }
}
