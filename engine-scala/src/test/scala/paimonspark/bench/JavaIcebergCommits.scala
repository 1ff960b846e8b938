package paimonspark.bench

import java.lang.management.ManagementFactory
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.paimon.data.GenericRow
import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes

import paimonspark.interop.JavaPaimon

/**
 * Apache Paimon's Java core committing to two like tables, one keeping Iceberg metadata
 * (`metadata.iceberg.storage` = `table-location`), both `write-only`, for `bench/iceberg_metadata.py`: commits alternate
 * between the tables, so drift charges both alike. First COMMITS appends over every partition, then OVERWRITES
 * commits that each overwrite one partition (removing its files). Prints one JSON line per table and phase
 * (`append`, `overwrite`): each commit's CPU seconds (the whole process) and wall seconds, and the files and
 * bytes its `metadata/` directory gained.
 *
 * usage: JavaIcebergCommits WAREHOUSE COMMITS ROWS_PER_COMMIT PARTITIONS OVERWRITES
 */
object JavaIcebergCommits {
  def main(args: Array[String]): Unit = {
    val (warehouse, commits, rows, partitions, overwrites) =
      (args(0), args(1).toInt, args(2).toInt, args(3).toInt, args(4).toInt)
    val java = new JavaPaimon(warehouse, Map.empty)
    val tables = Seq("plain" -> Map.empty[String, String], "iceberg" -> Map("metadata.iceberg.storage" -> "table-location"))
    tables.foreach { case (name, options) =>
      val builder = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
        .column("dt", DataTypes.STRING()).partitionKeys("dt").option("bucket", "-1").option("write-only", "true")
      options.foreach { case (k, v) => builder.option(k, v) }
      java.createTable(s"default.$name", builder.build())
    }
    val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]
    def metadata(name: String): Map[String, Long] = {
      val dir = Path.of(java.table(s"default.$name").location().toUri.getPath, "metadata")
      if (!Files.isDirectory(dir)) Map.empty
      else Files.list(dir).iterator().asScala.map(p => p.getFileName.toString -> Files.size(p)).toMap
    }
    def overwrite(name: String, i: Int): Unit = {
      val partition = s"d${i % partitions}"
      val builder = java.table(s"default.$name").newBatchWriteBuilder().withOverwrite(Map("dt" -> partition).asJava)
      val (write, commit) = (builder.newWrite(), builder.newCommit())
      try {
        (0 until rows / partitions).foreach(r => write.write(GenericRow.of(
          Seq(i * rows + r, s"v$r", partition).map(JavaPaimon.internal): _*)))
        commit.commit(write.prepareCommit())
      } finally { write.close(); commit.close() }
    }
    def measure(phase: String, count: Int)(commitTo: (String, Int) => Unit): Unit = {
      val measured = tables.map(_._1 -> scala.collection.mutable.ArrayBuffer.empty[(Double, Double, Int, Long)]).toMap
      (-3 until count).foreach { i =>
        tables.foreach { case (name, _) =>
          val before = metadata(name)
          System.gc()
          val (cpu, wall) = (os.getProcessCpuTime, System.nanoTime())
          commitTo(name, i + 3)
          val (cpuAfter, wallAfter) = (os.getProcessCpuTime, System.nanoTime())
          val added = metadata(name).filterNot { case (f, _) => before.contains(f) }
          if (i >= 0) measured(name) += (((cpuAfter - cpu) / 1e9, (wallAfter - wall) / 1e9, added.size, added.values.sum))
        }
      }
      tables.foreach { case (name, _) =>
        val m = measured(name)
        println(s"""{"table": "$name", "phase": "$phase", "cpu": [${m.map(_._1).mkString(", ")}], """ +
          s""""wall": [${m.map(_._2).mkString(", ")}], "files": ${m.map(_._3).sum}, "bytes": ${m.map(_._4).sum}}""")
      }
    }
    measure("append", commits)((name, i) =>
      java.insert(s"default.$name", (0 until rows).map(r => Seq(i * rows + r, s"v$r", s"d${r % partitions}")): _*))
    measure("overwrite", overwrites)(overwrite)
    java.close()
  }
}
