package paimonspark.fs

import java.net.{HttpURLConnection, Socket, URI}
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileSystem

import paimonspark.{Checkout, Loopback}

/**
 * An object store's emulator for tests, in a process of its own on 127.0.0.1 at a free port until [[stop]],
 * with the Hadoop settings its connector needs to reach it ([[settings]], as docs/storage.md gives them).
 */
sealed abstract class StoreEmulator(process: Process, val port: Int) {
  def settings: Seq[(String, String)]

  /** The URI of `path` in the emulator's one bucket or container. */
  def uri(path: String): String

  /** A Hadoop configuration with [[settings]] and `extra`. */
  def conf(extra: (String, String)*): Configuration = {
    val conf = new Configuration()
    (settings ++ extra).foreach { case (k, v) => conf.set(k, v) }
    conf
  }

  def stop(): Unit = {
    process.destroy()
    process.waitFor()
  }
}

/** Google Cloud Storage's JSON API (fake-gcs-server, `tests/support/fake_gcs.py`) for gcs-connector. */
final class FakeGcs private (process: Process, port: Int, val bucket: String) extends StoreEmulator(process, port) {
  override def uri(path: String): String = s"gs://$bucket/$path"

  override val settings: Seq[(String, String)] = FakeGcs.connectorSettings ++ Seq(
    "fs.gs.storage.root.url" -> s"http://127.0.0.1:$port", "fs.gs.auth.type" -> "UNAUTHENTICATED",
    "fs.gs.project.id" -> "test",
    // The emulator checks create-if-absent preconditions on the single-request uploads only.
    "fs.gs.outputstream.direct.upload.enable" -> "true")
}

object FakeGcs {
  /** What gcs-connector 3.1.3 needs on Hadoop 3.5.0 (python/paimon_spark/session.py sets the same). */
  val connectorSettings: Seq[(String, String)] = Seq(
    "fs.gs.impl" -> "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem",
    "fs.AbstractFileSystem.gs.impl" -> "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFS",
    "fs.gs.block.size" -> "67108864", "fs.gs.rewrite.max.chunk.size" -> "536870912",
    "fs.gs.outputstream.buffer.size" -> "8388608", "fs.gs.inputstream.inplace.seek.limit" -> "8388608",
    "fs.gs.inputstream.min.range.request.size" -> "2097152", "parquet.hadoop.vectored.io.enabled" -> "false")

  def start(): FakeGcs = {
    val port = Loopback.freePort()
    // A bucket of its own: gcs-connector caches one filesystem per bucket in the JVM, with its first settings.
    val bucket = s"wh-$port"
    val process = new ProcessBuilder(Checkout.python.toString, Checkout.support("fake_gcs.py").toString, port.toString,
      bucket).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
    Loopback.awaitStart(process, "fake-gcs-server", 60)(answers(s"http://127.0.0.1:$port/storage/v1/b/$bucket"))(
      s" on port $port")
    new FakeGcs(process, port, bucket)
  }

  private def answers(url: String): Boolean =
    try URI.create(url).toURL.openConnection().asInstanceOf[HttpURLConnection].getResponseCode == 200
    catch { case _: java.io.IOException => false }
}

/** Azure Blob storage (Azurite behind a listing-order proxy, `tests/support/sorted_azurite.py`) for ABFS. */
final class Azurite private (process: Process, port: Int, val container: String) extends StoreEmulator(process, port) {
  override def uri(path: String): String = s"abfs://$container@${Azurite.Account}.dfs.core.windows.net/$path"

  override val settings: Seq[(String, String)] = Azurite.connectorSettings ++ Seq(
    s"fs.azure.account.key.${Azurite.Account}.dfs.core.windows.net" -> Azurite.Key,
    "fs.azure.account.auth.type" -> "SharedKey", "fs.azure.abfs.endpoint" -> s"127.0.0.1:$port",
    "fs.azure.always.use.https" -> "false")
}

object Azurite {
  val Account = "devstoreaccount1"
  /** Azurite's well-known development key. */
  val Key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

  /** What ABFS 3.5.0 needs for a Blob-endpoint account over http (python/paimon_spark/session.py sets the same). */
  val connectorSettings: Seq[(String, String)] = Seq(
    "fs.azure.account.hns.enabled" -> "false", "fs.azure.fns.account.service.type" -> "BLOB",
    "fs.azure.networking.library" -> "JDK_HTTP_URL_CONNECTION", "fs.azure.enable.create.blob.idempotency" -> "false",
    // ABFS 3.5.0 collects read metrics per file type without a lock: concurrent reads fail (an NPE) in it.
    "fs.azure.metrics.collection.enabled" -> "false")

  def start(): Azurite = {
    val port = Loopback.freePort()
    // A container of its own: ABFS caches one filesystem per container in the JVM, with its first settings.
    val container = s"wh-$port"
    val azurite = Checkout.root.resolve(".cache/node/node_modules/.bin/azurite-blob")
    require(azurite.toFile.canExecute, s"no Azurite at $azurite: run `make emulators`")
    val process = new ProcessBuilder(Checkout.python.toString, Checkout.support("sorted_azurite.py").toString,
      azurite.toString, port.toString, Files.createTempDirectory("azurite").toString)
      .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
    Loopback.awaitStart(process, "Azurite", 60)(listening(port))(s" on port $port")
    val emulator = new Azurite(process, port, container)
    // The container, made once: filesystems that make it as they start fail when they start at once.
    val root = new java.net.URI(emulator.uri(""))
    FileSystem.newInstance(root, emulator.conf("fs.azure.createRemoteFileSystemDuringInitialization" -> "true")).close()
    emulator
  }

  private def listening(port: Int): Boolean =
    try { new Socket("127.0.0.1", port).close(); true }
    catch { case _: java.io.IOException => false }
}
