package paimonspark.interop

import java.net.URI
import java.nio.file.{Files, Path}

import org.apache.hadoop.fs.{FSDataOutputStream, RawLocalFileSystem, Path => HadoopPath}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

import paimonspark.spark.LocalSession

/**
 * Local files under the scheme `stalling-file`, where creating an Iceberg `*.metadata.json` never returns:
 * it touches the file the system property `stall.marker` names and waits, so that a test can kill the
 * writer at that point, after its Paimon commit and before its Iceberg metadata.
 */
final class StallingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create(s"${StalledIcebergWriter.Scheme}:///")
  override def getScheme: String = StalledIcebergWriter.Scheme

  private def stallAt(f: HadoopPath): Unit = if (f.getName.contains(".metadata.json")) {
    Files.createFile(Path.of(sys.props("stall.marker")))
    Thread.sleep(Long.MaxValue)
  }

  override def create(f: HadoopPath, overwrite: Boolean, bufferSize: Int, replication: Short, blockSize: Long,
      progress: Progressable): FSDataOutputStream = {
    stallAt(f)
    super.create(f, overwrite, bufferSize, replication, blockSize, progress)
  }

  override def create(f: HadoopPath, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
      blockSize: Long, progress: Progressable): FSDataOutputStream = {
    stallAt(f)
    super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress)
  }
}

/** A writer process: runs one statement in a session over WAREHOUSE through [[StallingFileSystem]]. */
object StalledIcebergWriter {
  val Scheme = "stalling-file"

  def main(args: Array[String]): Unit = {
    val Array(warehouse, statement) = args
    val spark = LocalSession.onWarehouse("stalled-writer", s"$Scheme://$warehouse",
      s"spark.hadoop.fs.$Scheme.impl" -> classOf[StallingFileSystem].getName)
    spark.sql(statement).collect()
    System.err.println(s"the statement finished without stalling: $statement")
  }

  /**
   * Starts the writer on `warehouse` (a local directory) with `statement`, waits until it stalls at its Iceberg
   * metadata and kills it (SIGKILL).
   */
  def killAtIcebergMetadata(warehouse: Path, statement: String): Unit = {
    val marker = Files.createTempDirectory("stall").resolve("stalled")
    val log = marker.resolveSibling("writer.log")
    val jvmOptions = java.lang.management.ManagementFactory.getRuntimeMXBean.getInputArguments.toArray
      .map(_.toString).filter(o => o.startsWith("--add-opens") || o.startsWith("-X") || o.startsWith("-Djdk"))
    val command = Seq(Path.of(sys.props("java.home"), "bin", "java").toString) ++ jvmOptions ++ Seq(s"-Dstall.marker=$marker", "-cp", sys.props("java.class.path"),
      getClass.getName.stripSuffix("$"), warehouse.toString, statement)
    val builder = new ProcessBuilder(command: _*).redirectErrorStream(true).redirectOutput(log.toFile)
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1")
    val process = builder.start()
    try paimonspark.Loopback.awaitStart(process, "the writer", 180)(Files.exists(marker))(
      s" its Iceberg metadata:\n${Files.readString(log).takeRight(4000)}")
    finally { process.destroyForcibly(); process.waitFor() }
  }
}
