package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `CALL sys.rename_tag(table => 'db.t', tag => 'a', target_tag => 'b')`. */
final class RenameTagProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "rename_tag"

  override protected val params = Seq(required("table", StringType), required("tag", StringType),
    required("target_tag", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    args.table.tagManager.rename(args.need("tag", args.string("tag")), args.need("target_tag", args.string("target_tag")))
    Seq(InternalRow(true))
  }
}
