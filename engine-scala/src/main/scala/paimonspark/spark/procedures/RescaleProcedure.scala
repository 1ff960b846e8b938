package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BooleanType, IntegerType, StringType, StructField}

import paimonspark.spark.write.Rescale
import paimonspark.table.FileStoreTable

/**
 * `CALL sys.rescale(table, bucket_num, partitions | where)`: rewrites the selected partitions (all
 * by default) into `bucket_num` buckets, the table's `bucket` unless given ([[Rescale]]). Paimon's
 * way to change a bucket count: ALTER TABLE SET ('bucket' = 'n'), then rescale.
 */
final class RescaleProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "rescale"
  override protected val params = Seq(required("table", StringType), optional("bucket_num", IntegerType),
    optional("partitions", StringType), optional("where", StringType))
  override protected val output = Seq(StructField("result", BooleanType))

  override protected def run(args: Args): Seq[InternalRow] = {
    def arg(name: String) = args.string(name).map(_.trim).filter(_.nonEmpty)
    val table = args.table
    Rescale.run(table, args.int("bucket_num"), PartitionSelection(name, table, arg("partitions"), arg("where")))
    Seq(InternalRow(true))
  }
}
