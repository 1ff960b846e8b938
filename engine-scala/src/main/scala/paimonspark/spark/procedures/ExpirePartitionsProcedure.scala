package paimonspark.spark.procedures

import java.time.LocalDateTime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.write.PartitionExpiry

/**
 * `CALL sys.expire_partitions(table, expiration_time, timestamp_formatter, timestamp_pattern,
 * expire_strategy, max_expires, options)`: drops, in one OVERWRITE commit, the partitions older
 * than `expiration_time` by Paimon's partition expiry; arguments left out take the table's
 * `partition.*` options (which `options` may set for this call). One row per expired partition
 * (`k1=v1, k2=v2`), or the single row `No expired partitions.`.
 */
final class ExpirePartitionsProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "expire_partitions"
  override protected val params = Seq(required("table", StringType), optional("expiration_time", StringType),
    optional("timestamp_formatter", StringType), optional("timestamp_pattern", StringType),
    optional("expire_strategy", StringType), optional("max_expires", IntegerType), optional("options", StringType))
  override protected val output = Seq(StructField("expired_partitions", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val requested = Map(
      "partition.expiration-time" -> args.string("expiration_time"),
      "partition.timestamp-formatter" -> args.string("timestamp_formatter"),
      "partition.timestamp-pattern" -> args.string("timestamp_pattern"),
      "partition.expiration-strategy" -> args.string("expire_strategy"),
      "partition.expiration-max-num" -> args.int("max_expires").map(_.toString))
      .collect { case (k, Some(v)) => k -> v }
    requested.foreach { case (k, v) => paimonspark.table.options.PaimonOptions.get(k).foreach(_.check(v)) }
    val table = args.table.withDynamicOptions(requested)
    val expiry = PartitionExpiry.of(table).getOrElse(throw new InvalidOptionException("expiration_time",
      s"$name: table ${table.name} ${if (table.schema.partitionKeys.isEmpty) "is not partitioned" else
        "has no partition.expiration-time; give expiration_time"}"))
    val expired = expiry.expire(table, LocalDateTime.now())
    (if (expired.isEmpty) Seq("No expired partitions.") else expired).map(p => InternalRow(UTF8String.fromString(p)))
  }
}
