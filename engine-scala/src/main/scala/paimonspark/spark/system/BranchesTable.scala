package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$branches`: the table's branches besides main, with the time each was created. */
final class BranchesTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("branch_name", StringType, nullable = false),
    StructField("create_time", TimestampNTZType, nullable = false)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val branches = at.branchManager
    branches.list().map(b => InternalRow(str(b), localTime(branches.createdMillis(b))))
  }
}
