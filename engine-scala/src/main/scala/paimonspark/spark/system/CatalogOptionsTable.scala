package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/**
 * `sys.catalog_options`: the catalog's options as its `spark.sql.catalog.<name>.*` settings gave them, with
 * the values of credentials (a REST catalog's `token`, passwords, keys) masked as Spark masks them in its UI
 * (`spark.redaction.regex`).
 */
final class CatalogOptionsTable(options: Map[String, String], displayName: String) extends CatalogSystemTable(displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("key", StringType, nullable = false),
    StructField("value", StringType, nullable = false)))

  override def rows(): Seq[InternalRow] =
    SQLConf.get.redactOptions(options).toSeq.sortBy(_._1).map { case (k, v) => InternalRow(str(k), str(v)) }
}
