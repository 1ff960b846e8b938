package org.apache.spark.sql.paimon

import scala.util.Try

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.{CatalogManager, CatalogPlugin, Identifier, LookupCatalog, Table, TableCatalog}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * Spark's own resolution of names (current catalog and namespace, catalog names, multi-part table names),
 * which Spark keeps private to its `sql` package; this file lives there for that reason alone.
 */
object CatalogLookup {
  /** The current catalog's name and namespace, as `USE` sets them. */
  def current(session: SparkSession): (String, Array[String]) = {
    val manager = session.sessionState.catalogManager
    (manager.currentCatalog.name(), manager.currentNamespace)
  }

  /** Whether `name` is a catalog of the session (`spark_catalog` always is). */
  def isCatalog(session: SparkSession, name: String): Boolean =
    name.equalsIgnoreCase(CatalogManager.SESSION_CATALOG_NAME) ||
      session.sessionState.catalogManager.isCatalogRegistered(name)

  /** The session's catalog `name`, which must be one ([[isCatalog]]). */
  def catalog(session: SparkSession, name: String): CatalogPlugin = session.sessionState.catalogManager.catalog(name)

  /** The table `nameParts` names, as its catalog loads it; None if it does not load. */
  def load(session: SparkSession, nameParts: Seq[String]): Option[Table] =
    resolve(session, nameParts).flatMap { case (catalog, ident) => Try(catalog.loadTable(ident)).toOption }

  /** A relation reading the table `nameParts` names with read `options` (a table-valued function's plan). */
  def relation(session: SparkSession, nameParts: Seq[String], options: CaseInsensitiveStringMap): LogicalPlan =
    resolve(session, nameParts) match {
      case Some((catalog, ident)) => DataSourceV2Relation.create(catalog.loadTable(ident), Some(catalog), Some(ident), options)
      case None => throw new NoSuchTableException(nameParts)
    }

  private def resolve(session: SparkSession, nameParts: Seq[String]): Option[(TableCatalog, Identifier)] = {
    val lookup = new LookupCatalog {
      override protected lazy val catalogManager: CatalogManager = session.sessionState.catalogManager
    }
    nameParts match {
      case lookup.CatalogAndIdentifier(catalog: TableCatalog, ident) => Some((catalog, ident))
      case _ => None
    }
  }
}
