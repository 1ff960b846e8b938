package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$options`: the table's options as its latest schema holds them. */
final class OptionsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("key", StringType, nullable = false),
    StructField("value", StringType, nullable = false)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] =
    at.schema.options.toSeq.sortBy(_._1).map { case (k, v) => InternalRow(str(k), str(v)) }
}
