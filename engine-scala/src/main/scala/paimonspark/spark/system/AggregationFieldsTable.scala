package paimonspark.spark.system

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/**
 * `t$aggregation_fields`: one row per column of the latest schema, with its type as Paimon spells it
 * and the `fields.<column>.<option>` options that configure it (`aggregate-function`, `ignore-retract`,
 * `sequence-group`, ...): `function` lists their values and `function_options` their keys, as Java
 * prints lists (`[sum]`, `[fields.v.aggregate-function]`, `[]` for a column with none).
 */
final class AggregationFieldsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("field_name", StringType, nullable = false),
    StructField("field_type", StringType, nullable = false),
    StructField("function", StringType),
    StructField("function_options", StringType),
    StructField("comment", StringType)))

  // Paimon reads the latest schema whatever snapshot the read addresses.
  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val schema = at.schemaManager.latestOrFail()
    val byColumn = columnOptions(schema.options)
    schema.fields.map { f =>
      val options = byColumn.getOrElse(f.name, Nil)
      def list(part: ((String, String)) => String) = str(options.map(part).mkString("[", ", ", "]"))
      InternalRow(str(f.name), str(f.dataType.sql), list(_._2), list(_._1), str(f.description))
    }
  }

  /**
   * The options of the form `fields.<column>.<rest>`, by column, in the order Paimon lists them: that of a
   * java.util.HashMap filled in file order (Java reads the schema's options into one). Our schema files
   * hold options sorted by key; a file Java wrote may order two keys of one column that share a hash
   * bucket otherwise.
   */
  private def columnOptions(options: Map[String, String]): Map[String, Seq[(String, String)]] = {
    val javaOrder = new java.util.HashMap[String, String]()
    options.toSeq.sortBy(_._1).foreach { case (k, v) => javaOrder.put(k, v) }
    javaOrder.asScala.toSeq.flatMap { case (key, value) =>
      // Java's split, which drops trailing empty parts: `fields.c.` names no option of c.
      val parts = key.split("\\.")
      if (parts.length > 2 && parts(0) == "fields") Some(parts(1) -> (key, value)) else None
    }.groupMap(_._1)(_._2)
  }
}
