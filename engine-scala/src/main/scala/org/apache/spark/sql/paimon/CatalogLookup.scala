package org.apache.spark.sql.paimon

import scala.util.Try

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{CatalogManager, LookupCatalog, Table, TableCatalog}

/**
 * Spark's own resolution of a multi-part table name (current catalog and namespace, catalog names),
 * which Spark keeps private to its `sql` package; this file lives there for that reason alone.
 */
object CatalogLookup {
  /** The table `nameParts` names, as its catalog loads it; None if it does not load. */
  def load(session: SparkSession, nameParts: Seq[String]): Option[Table] = {
    val lookup = new LookupCatalog {
      override protected lazy val catalogManager: CatalogManager = session.sessionState.catalogManager
    }
    nameParts match {
      case lookup.CatalogAndIdentifier(catalog: TableCatalog, ident) => Try(catalog.loadTable(ident)).toOption
      case _ => None
    }
  }
}
