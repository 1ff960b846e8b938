package paimonspark.table.write

import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path

import paimonspark.UnsupportedFeatureException
import paimonspark.table.FileStoreTable

/**
 * Paimon's `partition.mark-done-action`, run by `mark_partition_done` and, with
 * `partition.end-input-to-done`, after every batch write for the partitions it wrote. This engine
 * does `success-file`: a `_SUCCESS` file in the partition's directory, the JSON
 * `{"creationTime":ms,"modificationTime":ms}` Paimon writes (marking again updates its modification
 * time). The other actions need a metastore's partitions or a service, and are refused.
 */
object PartitionMarkDone {
  val SuccessFile = "_SUCCESS"
  private val Supported = Set("success-file")

  /** The table's actions, checked: every one must be one this engine does. */
  def actions(table: FileStoreTable): Seq[String] = {
    val actions = table.options.markDoneActions
    actions.filterNot(Supported).foreach { a =>
      throw new UnsupportedFeatureException(s"table ${table.name}: partition.mark-done-action '$a' is not supported " +
        "yet; this engine marks partitions done with 'success-file'", "partition.mark-done-action")
    }
    actions
  }

  /** Marks each partition (its relative directory, `k1=v1/k2=v2`) done. */
  def mark(table: FileStoreTable, partitionPaths: Seq[String]): Unit = {
    actions(table)
    partitionPaths.distinct.foreach { dir =>
      val file = new Path(new Path(table.location, dir), SuccessFile)
      val now = System.currentTimeMillis()
      val created = table.io.readUtf8IfExists(file).flatMap(t => Option(new ObjectMapper().readTree(t).get("creationTime")))
        .map(_.asLong()).getOrElse(now)
      table.io.overwrite(file, s"""{"creationTime":$created,"modificationTime":$now}""".getBytes(UTF_8))
    }
  }
}
