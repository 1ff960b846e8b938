package paimonspark.spark.procedures

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{CatalogPlugin, Identifier}
import org.apache.spark.sql.paimon.CatalogLookup

import paimonspark.InvalidIdentifierException
import paimonspark.spark.catalog.TableName

/**
 * A procedure's `table` argument as Paimon's procedures read it: `t` is in the current database
 * (`USE`) when the procedure's catalog is the current one, else in the catalog's default database;
 * `db.t` names the database; `cat.db.t` must name the procedure's own catalog. Backquotes quote a
 * part (`db.`t$branch_b``), as [[TableName.multipart]] reads it.
 */
object ProcedureTableName {
  def resolve(text: String, catalog: String, defaultNamespace: Array[String]): Identifier = {
    if (text.trim.isEmpty) throw new InvalidIdentifierException(text, "Cannot handle an empty identifier for argument table")
    val session = SparkSession.active
    val parts = TableName.multipart(text)
    val inCatalog = if (parts.length > 1 && CatalogLookup.isCatalog(session, parts.head)) {
      if (!parts.head.equalsIgnoreCase(catalog)) {
        throw new InvalidIdentifierException(text,
          s"Cannot run procedure in catalog '$catalog': '$text' is a table in catalog '${parts.head}'")
      }
      parts.tail
    } else parts
    if (inCatalog.length > 1) Identifier.of(inCatalog.init.toArray, inCatalog.last)
    else {
      val (current, namespace) = CatalogLookup.current(session)
      Identifier.of(if (current.equalsIgnoreCase(catalog)) namespace else defaultNamespace, inCatalog.head)
    }
  }

  /**
   * A table argument that may name a table of another catalog of the session (`copy`'s): `cat.db.t`
   * is in catalog `cat`, other names are in the procedure's catalog, as [[resolve]] reads them.
   */
  def inSession(text: String, procedureCatalog: String): (CatalogPlugin, Identifier) = {
    val session = SparkSession.active
    val parts = TableName.multipart(text)
    val named = if (parts.length > 1 && CatalogLookup.isCatalog(session, parts.head)) parts.head else procedureCatalog
    val catalog = CatalogLookup.catalog(session, named)
    (catalog, resolve(text, catalog.name(), catalog.defaultNamespace()))
  }
}
