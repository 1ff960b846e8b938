package paimonspark.table.write

import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path

import paimonspark.UnsupportedFeatureException
import paimonspark.format.PartitionPath
import paimonspark.table.FileStoreTable

/**
 * Paimon's `partition.mark-done-action`, run by `mark_partition_done` and, with
 * `partition.end-input-to-done`, after every batch write for the partitions it wrote:
 *  - `success-file`: a `_SUCCESS` file in the partition's directory, the JSON
 *    `{"creationTime":ms,"modificationTime":ms}` Paimon writes (marking again updates its
 *    modification time);
 *  - `done-partition` and `mark-event`, which live in a metastore: the table's catalog does them
 *    ([[paimonspark.table.CatalogHooks.markDone]]), or refuses them as Paimon does without one.
 * `http-report` and `custom` need a service or a class of the user's, and are refused.
 */
object PartitionMarkDone {
  val SuccessFile = "_SUCCESS"
  private val InCatalog = Seq("done-partition", "mark-event")
  private val Supported = InCatalog.toSet + "success-file"

  /** The table's actions, checked: every one must be one this engine does. */
  def actions(table: FileStoreTable): Seq[String] = {
    val actions = table.options.markDoneActions
    actions.filterNot(Supported).foreach { a =>
      throw new UnsupportedFeatureException(s"table ${table.name}: partition.mark-done-action '$a' is not supported " +
        s"yet; this engine marks partitions done with ${Supported.toSeq.sorted.mkString(", ")}", "partition.mark-done-action")
    }
    actions
  }

  /** Marks each partition, given by its values in partition order, done; the catalog's actions go first. */
  def mark(table: FileStoreTable, partitions: Seq[Seq[String]]): Unit = {
    val todo = actions(table)
    val distinct = partitions.distinct
    InCatalog.filter(todo.contains).foreach(table.hooks.markDone(table, _, distinct))
    if (todo.contains("success-file")) distinct.foreach { values =>
      val file = new Path(new Path(table.location, PartitionPath.ofValues(table.schema.partitionKeys, values)), SuccessFile)
      val now = System.currentTimeMillis()
      val created = table.io.readUtf8IfExists(file).flatMap(t => Option(new ObjectMapper().readTree(t).get("creationTime")))
        .map(_.asLong()).getOrElse(now)
      table.io.overwrite(file, s"""{"creationTime":$created,"modificationTime":$now}""".getBytes(UTF_8))
    }
  }
}
