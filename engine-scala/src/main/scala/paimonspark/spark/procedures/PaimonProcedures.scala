package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException
import org.apache.spark.sql.connector.catalog.{Identifier, ProcedureCatalog}
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure

import paimonspark.UnsupportedFeatureException
import paimonspark.catalog.Catalog
import paimonspark.spark.catalog.WithPaimonCatalog
import paimonspark.table.FileStoreTable

/** The procedures of a Paimon catalog, under the `sys` namespace: `CALL <catalog>.sys.compact(...)`. */
trait PaimonProcedures extends ProcedureCatalog {
  /** The table a procedure's `table` argument names (`db.t`, or `t` in the current database). */
  protected def procedureTable(name: String): FileStoreTable

  /** Every table of the catalog, as (database, table); a catalog of paths has no list. */
  protected def catalogTables(): Seq[(String, String)]

  private def procedures: Map[String, UnboundProcedure] = Map(
    "compact" -> new CompactProcedure(procedureTable),
    "rescale" -> new RescaleProcedure(procedureTable),
    "create_tag" -> new CreateTagProcedure(procedureTable, replace = false),
    "replace_tag" -> new CreateTagProcedure(procedureTable, replace = true),
    "create_tag_from_timestamp" -> new CreateTagFromTimestampProcedure(procedureTable, byWatermark = false),
    "create_tag_from_watermark" -> new CreateTagFromTimestampProcedure(procedureTable, byWatermark = true),
    "delete_tag" -> new DeleteTagProcedure(procedureTable),
    "rename_tag" -> new RenameTagProcedure(procedureTable),
    "rollback" -> new RollbackProcedure(procedureTable, RollbackProcedure.ByVersion),
    "rollback_to_timestamp" -> new RollbackProcedure(procedureTable, RollbackProcedure.ByTimestamp),
    "rollback_to_watermark" -> new RollbackProcedure(procedureTable, RollbackProcedure.ByWatermark),
    "create_branch" -> new CreateBranchProcedure(procedureTable),
    "delete_branch" -> new DeleteBranchProcedure(procedureTable),
    "rename_branch" -> new RenameBranchProcedure(procedureTable),
    "reset_consumer" -> new ResetConsumerProcedure(procedureTable),
    "clear_consumers" -> new ClearConsumersProcedure(procedureTable),
    "fast_forward" -> new FastForwardProcedure(procedureTable),
    "expire_snapshots" -> new ExpireSnapshotsProcedure(procedureTable),
    "expire_changelogs" -> new ExpireChangelogsProcedure(procedureTable),
    "expire_tags" -> new ExpireTagsProcedure(procedureTable),
    "expire_partitions" -> new ExpirePartitionsProcedure(procedureTable),
    "mark_partition_done" -> new MarkPartitionDoneProcedure(procedureTable),
    "remove_orphan_files" -> new RemoveOrphanFilesProcedure(procedureTable, () => catalogTables()),
    "compact_database" -> new CompactDatabaseProcedure(procedureTable, () => catalogTables()),
    "remove_unexisting_files" -> new RemoveUnexistingFilesProcedure(procedureTable),
    "purge_files" -> new PurgeFilesProcedure(procedureTable),
    "compact_manifest" -> new CompactManifestProcedure(procedureTable),
    "trigger_tag_automatic_creation" -> new TriggerTagAutomaticCreationProcedure(procedureTable),
    "copy" -> new CopyProcedure(procedureTable, name()),
    "repair" -> new RepairProcedure(procedureTable, () => ownCatalog()))

  /** The Paimon catalog this one is over; a catalog of paths has none. */
  private def ownCatalog(): Catalog = this match {
    case c: WithPaimonCatalog => c.paimonCatalog
    case _ => throw new UnsupportedFeatureException(s"catalog ${name()} addresses tables by path; it keeps no " +
      "databases or tables of its own to repair", "repair")
  }

  override def loadProcedure(ident: Identifier): UnboundProcedure =
    if (ident.namespace().sameElements(Array("sys"))) {
      procedures.getOrElse(ident.name().toLowerCase, throw new NoSuchFunctionException(ident))
    } else throw new NoSuchFunctionException(ident)

  override def listProcedures(namespace: Array[String]): Array[Identifier] =
    if (namespace.sameElements(Array("sys"))) procedures.keys.toArray.sorted.map(Identifier.of(namespace, _))
    else Array.empty
}
