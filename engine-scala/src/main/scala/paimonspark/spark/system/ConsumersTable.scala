package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$consumers`: each streaming consumer's next snapshot (`consumer/consumer-<id>`). */
final class ConsumersTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("consumer_id", StringType, nullable = false),
    StructField("next_snapshot_id", LongType, nullable = false)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] =
    at.consumerManager.list().map { case (id, next) => InternalRow(str(id), next) }
}
