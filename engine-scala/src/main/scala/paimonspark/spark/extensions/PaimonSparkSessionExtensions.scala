package paimonspark.spark.extensions

import org.apache.spark.sql.SparkSessionExtensions

/**
 * Paimon's SQL extensions, enabled with
 * `spark.sql.extensions=paimonspark.spark.extensions.PaimonSparkSessionExtensions`
 * (`configure_spark_with_paimon` sets it): tag statements ([[PaimonSqlParser]]), the incremental
 * table-valued functions ([[IncrementalQueries]]), `write.merge-schema` ([[MergeSchemaWrites]]) and
 * DESCRIBE EXTENDED's `# Column Not Null` section ([[DescribeNotNullColumns]]).
 * Tables work without it; only what it adds is missing.
 */
class PaimonSparkSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectParser((_, delegate) => new PaimonSqlParser(delegate))
    extensions.injectHintResolutionRule(new MergeSchemaWrites(_))
    IncrementalQueries.functions.foreach(extensions.injectTableFunction)
    extensions.injectPlannerStrategy(_ => DescribeNotNullColumns)
  }
}
