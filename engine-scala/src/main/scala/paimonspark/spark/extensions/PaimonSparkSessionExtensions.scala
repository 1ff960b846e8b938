package paimonspark.spark.extensions

import org.apache.spark.sql.SparkSessionExtensions

/**
 * Analyzer rules for Paimon tables, enabled with
 * `spark.sql.extensions=paimonspark.spark.extensions.PaimonSparkSessionExtensions`
 * (`configure_spark_with_paimon` sets it). Tables work without it; only what the rules add is missing.
 */
class PaimonSparkSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit =
    extensions.injectHintResolutionRule(new MergeSchemaWrites(_))
}
