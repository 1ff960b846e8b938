package paimonspark.spark.catalog

import paimonspark.catalog.Catalog

/**
 * A Spark catalog over a Paimon catalog (Paimon's `WithPaimonCatalog`): what procedures that act on
 * a catalog rather than one table (`repair`), or create tables in another catalog (`copy`), reach.
 */
trait WithPaimonCatalog {
  def paimonCatalog: Catalog
}
