package paimonspark.spark

import java.util

import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.catalog.Catalog
import paimonspark.spark.catalog.{PaimonFunctions, WithPaimonCatalog}

/**
 * A replacement for `spark_catalog` that keeps Spark's own tables working and adds Paimon tables:
 * `CREATE TABLE t (...) USING paimon` goes to the Paimon warehouse, everything else to Spark's
 * session catalog. Names are looked up in the warehouse first.
 */
class PaimonSessionCatalog extends DelegatingCatalogExtension with ProcedureCatalog with WithPaimonCatalog {
  private val paimon = new PaimonCatalog

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    super.initialize(name, options)
    paimon.initialize(name, options)
  }

  override def paimonCatalog: Catalog = paimon.paimonCatalog

  private def isPaimon(ident: Identifier): Boolean =
    ident.namespace().length == 1 && paimon.namespaceExists(ident.namespace()) && paimon.tableExists(ident)

  private def ensureDatabase(namespace: Array[String]): Unit =
    if (!paimon.namespaceExists(namespace)) paimon.createNamespace(namespace, new util.HashMap())

  override def loadProcedure(ident: Identifier): procedures.UnboundProcedure = paimon.loadProcedure(ident)

  override def listProcedures(namespace: Array[String]): Array[Identifier] = paimon.listProcedures(namespace)

  override def loadFunction(ident: Identifier): functions.UnboundFunction =
    PaimonFunctions.find(ident).getOrElse(super.loadFunction(ident))

  override def loadTable(ident: Identifier): Table =
    if (isPaimon(ident)) paimon.loadTable(ident) else super.loadTable(ident)

  // Time travel and read options: DelegatingCatalogExtension forwards these to Spark's catalog only.
  override def loadTable(ident: Identifier, version: String): Table =
    if (isPaimon(ident)) paimon.loadTable(ident, version) else super.loadTable(ident, version)

  override def loadTable(ident: Identifier, timestamp: Long): Table =
    if (isPaimon(ident)) paimon.loadTable(ident, timestamp) else super.loadTable(ident, timestamp)

  override def loadTable(ident: Identifier, context: TableContext, options: CaseInsensitiveStringMap): Table =
    if (isPaimon(ident)) paimon.loadTable(ident, context, options) else super.loadTable(ident, context, options)

  override def loadChangelog(ident: Identifier, context: ChangelogContext, options: CaseInsensitiveStringMap): Changelog =
    if (isPaimon(ident)) paimon.loadChangelog(ident, context, options) else super.loadChangelog(ident, context, options)

  override def tableExists(ident: Identifier): Boolean = isPaimon(ident) || super.tableExists(ident)

  override def createTable(ident: Identifier, info: TableInfo): Table =
    createTable(ident, info.columns(), info.partitions(), info.properties())

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    if ("paimon".equalsIgnoreCase(properties.get(TableCatalog.PROP_PROVIDER))) {
      ensureDatabase(ident.namespace())
      paimon.createTable(ident, columns, partitions, properties)
    } else super.createTable(ident, columns, partitions, properties)

  /** LIKE a Paimon table makes a Paimon table, unless USING says otherwise; Spark's catalog makes the rest. */
  override def createTableLike(ident: Identifier, info: TableInfo, source: Table): Table = source match {
    case _: SparkTable if Option(info.properties().get(TableCatalog.PROP_PROVIDER)).forall(_.equalsIgnoreCase("paimon")) =>
      ensureDatabase(ident.namespace())
      paimon.createTableLike(ident, info, source)
    case _ => super.createTableLike(ident, info, source)
  }

  override def alterTable(ident: Identifier, changes: TableChange*): Table =
    if (isPaimon(ident)) paimon.alterTable(ident, changes: _*) else super.alterTable(ident, changes: _*)

  override def dropTable(ident: Identifier): Boolean =
    if (isPaimon(ident)) paimon.dropTable(ident) else super.dropTable(ident)

  override def purgeTable(ident: Identifier): Boolean =
    if (isPaimon(ident)) paimon.purgeTable(ident) else super.purgeTable(ident)

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    val own = if (paimon.namespaceExists(namespace)) paimon.listTables(namespace) else Array.empty[Identifier]
    (super.listTables(namespace) ++ own).distinct
  }

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = {
    // Check the warehouse first so a refused drop leaves Spark's side untouched too.
    if (!cascade && paimon.namespaceExists(namespace) && paimon.listTables(namespace).nonEmpty) {
      throw new NonEmptyNamespaceException(namespace)
    }
    val dropped = super.dropNamespace(namespace, cascade)
    if (paimon.namespaceExists(namespace)) paimon.dropNamespace(namespace, cascade) || dropped else dropped
  }
}
