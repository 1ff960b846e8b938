package paimonspark.spark.procedures

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.table.{ExpireConfig, FileStoreTable}
import paimonspark.table.history.{OrphanFiles, SnapshotExpiry, TagAutoCreation, TagDeletion}
import paimonspark.table.write.{OverwriteScope, TableCommit}

/** `CALL sys.compact_manifest(table, options)`: a COMPACT snapshot with the table's manifests merged. */
final class CompactManifestProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "compact_manifest"
  override protected val params = Seq(required("table", StringType), optional("options", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    new TableCommit(args.table, UUID.randomUUID().toString).compactManifests()
    Seq(InternalRow(true))
  }
}

/**
 * `CALL sys.trigger_tag_automatic_creation(table)`: what a commit does for automatic tags
 * (`tag.automatic-creation`), now: the tags of periods that closed, and the expiry of those past
 * their retention.
 */
final class TriggerTagAutomaticCreationProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "trigger_tag_automatic_creation"
  override protected val params = Seq(required("table", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    TagAutoCreation.run(table)
    if (table.options.tagTimeExpireEnabled) TagDeletion.expireByTime(table)
    Seq(InternalRow(true))
  }
}

/**
 * `CALL sys.purge_files(table)`: empties the table and its history, as Paimon's does: its branches,
 * tags and consumers are deleted, an OVERWRITE commit removes every file, long-lived changelogs go,
 * snapshots are expired down to that last one, and every file it does not reference is removed.
 */
final class PurgeFilesProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "purge_files"
  override protected val params = Seq(required("table", StringType))
  override protected val output = Seq(StructField("result", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    table.branchManager.list().foreach(table.branchManager.delete)
    TagDeletion.delete(table, table.tagManager.list().map(_._1))
    table.consumerManager.clear(".*", None)
    if (table.snapshotManager.latestId().nonEmpty) {
      new TableCommit(table.withDynamicOptions(Map("write-only" -> "true")), UUID.randomUUID().toString)
        .commit(Nil, Some(OverwriteScope.WholeTable))
    }
    table.io.delete(table.paths.changelogDir, recursive = true)
    val now = System.currentTimeMillis()
    new SnapshotExpiry(table).expire(ExpireConfig(retainMin = 1, retainMax = 1, olderThanMillis = now, maxDeletes = Int.MaxValue))
    new OrphanFiles(table).find(now).foreach(o => table.io.delete(o.path, recursive = false))
    Seq(InternalRow(UTF8String.fromString("Success")))
  }
}

/**
 * `CALL sys.remove_unexisting_files(table, dry_run, parallelism)`: the data files the table lists
 * that are gone from storage, one row each; unless `dry_run`, one OVERWRITE commit removes them from
 * the table, so that reads work again (their rows are lost: this repairs a damaged table).
 */
final class RemoveUnexistingFilesProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "remove_unexisting_files"
  override protected val params = Seq(required("table", StringType), Param("dry_run", BooleanType, Some("false")),
    optional("parallelism", IntegerType))
  override protected val output = Seq(StructField("fileName", StringType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val store = table.newManifestStore()
    val live = table.snapshotManager.latest().toSeq.flatMap(s => store.liveFiles(store.dataManifests(s)))
    val missing = live.filterNot(e => table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file)))
    if (missing.nonEmpty && !args.boolean("dry_run").getOrElse(false)) {
      new TableCommit(table, UUID.randomUUID().toString).commit(Nil, Some(OverwriteScope.Files(missing.map(_.identifier).toSet)))
    }
    missing.map(e => InternalRow(UTF8String.fromString(table.dataFilePath(e.partition, e.bucket, e.file).toString)))
  }
}
