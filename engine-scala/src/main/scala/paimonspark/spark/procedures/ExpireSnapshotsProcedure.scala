package paimonspark.spark.procedures

import java.time.ZoneId

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidOptionException
import paimonspark.table.{ExpireConfig, FileStoreTable, SnapshotExpiry, TagDeletion, TimeTravel}

/**
 * `CALL sys.expire_snapshots(table, retain_max, retain_min, older_than, max_deletes)`: arguments
 * left out take the table's `snapshot.*` options. Tags past their retention go too.
 */
final class ExpireSnapshotsProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "expire_snapshots"
  override protected val params = Seq(required("table", StringType), optional("retain_max", IntegerType),
    optional("retain_min", IntegerType), optional("older_than", StringType), optional("max_deletes", IntegerType))
  override protected val output = Seq(StructField("deleted_snapshots_count", IntegerType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val now = System.currentTimeMillis()
    val defaults = table.options.expireConfig(now)
    val zone = ZoneId.of(SparkSession.active.sessionState.conf.sessionLocalTimeZone)
    val config = ExpireConfig(
      retainMin = args.int("retain_min").getOrElse(defaults.retainMin),
      retainMax = args.int("retain_max").getOrElse(defaults.retainMax),
      olderThanMillis = args.string("older_than").map(TimeTravel.parseTimestamp("older_than", _, zone))
        .getOrElse(defaults.olderThanMillis),
      maxDeletes = args.int("max_deletes").getOrElse(defaults.maxDeletes))
    Seq("retain_min" -> config.retainMin, "retain_max" -> config.retainMax, "max_deletes" -> config.maxDeletes)
      .collectFirst { case (k, v) if v < 1 => throw new InvalidOptionException(k, s"$name: $k must be at least 1, not $v") }
    if (config.retainMin > config.retainMax) {
      throw new InvalidOptionException("retain_min",
        s"$name: retain_min (${config.retainMin}) must not exceed retain_max (${config.retainMax})")
    }
    TagDeletion.expireByTime(table)
    Seq(InternalRow(new SnapshotExpiry(table).expire(config)))
  }
}
