package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$consumers`: each streaming consumer's next snapshot (`consumer/consumer-<id>`). */
final class ConsumersTable(table: FileStoreTable, displayName: String) extends SystemTable(displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("consumer_id", StringType, nullable = false),
    StructField("next_snapshot_id", LongType, nullable = false)))

  override def rows(hints: FilterHints): Seq[InternalRow] =
    table.consumerManager.list().map { case (id, next) => InternalRow(str(id), next) }
}
