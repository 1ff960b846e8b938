package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException
import org.apache.spark.sql.connector.catalog.{Identifier, ProcedureCatalog}
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure

import paimonspark.table.FileStoreTable

/** The procedures of a Paimon catalog, under the `sys` namespace: `CALL <catalog>.sys.compact(...)`. */
trait PaimonProcedures extends ProcedureCatalog {
  /** The table a procedure's `table` argument names (`db.t`, or `t` in the default database). */
  protected def procedureTable(name: String): FileStoreTable

  private def procedures: Map[String, UnboundProcedure] = Map(
    "compact" -> new CompactProcedure(procedureTable),
    "create_tag" -> new CreateTagProcedure(procedureTable, replace = false),
    "replace_tag" -> new CreateTagProcedure(procedureTable, replace = true),
    "create_tag_from_timestamp" -> new CreateTagFromTimestampProcedure(procedureTable),
    "delete_tag" -> new DeleteTagProcedure(procedureTable),
    "rename_tag" -> new RenameTagProcedure(procedureTable),
    "rollback" -> new RollbackProcedure(procedureTable, byTimestamp = false),
    "rollback_to_timestamp" -> new RollbackProcedure(procedureTable, byTimestamp = true),
    "create_branch" -> new CreateBranchProcedure(procedureTable),
    "delete_branch" -> new DeleteBranchProcedure(procedureTable),
    "fast_forward" -> new FastForwardProcedure(procedureTable),
    "expire_snapshots" -> new ExpireSnapshotsProcedure(procedureTable),
    "expire_changelogs" -> new ExpireChangelogsProcedure(procedureTable),
    "remove_orphan_files" -> new RemoveOrphanFilesProcedure(procedureTable))

  override def loadProcedure(ident: Identifier): UnboundProcedure =
    if (ident.namespace().sameElements(Array("sys"))) {
      procedures.getOrElse(ident.name().toLowerCase, throw new NoSuchFunctionException(ident))
    } else throw new NoSuchFunctionException(ident)

  override def listProcedures(namespace: Array[String]): Array[Identifier] =
    if (namespace.sameElements(Array("sys"))) procedures.keys.toArray.sorted.map(Identifier.of(namespace, _))
    else Array.empty
}
