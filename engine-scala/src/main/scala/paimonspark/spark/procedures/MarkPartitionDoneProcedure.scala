package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.write.PartitionMarkDone

/**
 * `CALL sys.mark_partition_done(table, partitions => 'dt=2026-11-27,h=1;dt=2026-11-28,h=0')`: runs
 * the table's `partition.mark-done-action` on each partition, whether or not it holds data yet.
 */
final class MarkPartitionDoneProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "mark_partition_done"
  override protected val params = Seq(required("table", StringType), required("partitions", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val keys = table.schema.partitionKeys
    val text = args.need("partitions", args.string("partitions"))
    if (keys.isEmpty) throw new InvalidOptionException("partitions", s"$name: table ${table.name} is not partitioned")
    val partitions = text.split(";").map(_.trim).filter(_.nonEmpty).map { spec =>
      val values = spec.split(",").map(_.split("=", 2).map(_.trim)).collect { case Array(k, v) => k -> v }.toMap
      if (values.keySet != keys.toSet) {
        throw new InvalidOptionException("partitions", s"$name: '$spec' must give every partition column of " +
          s"${table.name} once (${keys.mkString(", ")}) as column=value")
      }
      keys.map(values)
    }.toSeq
    if (partitions.isEmpty) throw new InvalidOptionException("partitions", s"$name: partitions => '$text' names no partition")
    PartitionMarkDone.mark(table, partitions)
    Seq(InternalRow(true))
  }
}
