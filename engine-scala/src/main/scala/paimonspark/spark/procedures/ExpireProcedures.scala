package paimonspark.spark.procedures

import java.time.{LocalDateTime, ZoneId}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.table.{ExpireConfig, FileStoreTable}
import paimonspark.table.history.{ChangelogExpiry, SnapshotExpiry, TagDeletion}
import paimonspark.table.scan.TimeTravel

/**
 * What the expiry procedures share: `retain_max`, `retain_min`, `older_than` and `max_deletes`,
 * each defaulting to the table's retention options, checked before anything is deleted.
 */
abstract class ExpireProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  protected val bounds: Seq[Param] = Seq(optional("retain_max", IntegerType), optional("retain_min", IntegerType),
    optional("older_than", StringType), optional("max_deletes", IntegerType))

  protected def config(args: Args, defaults: ExpireConfig): ExpireConfig = {
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
    config
  }
}

/**
 * `CALL sys.expire_snapshots(table, retain_max, retain_min, older_than, max_deletes, options)`:
 * arguments left out take the table's `snapshot.*` options, which `options` may set for this call.
 * As in Paimon, tags are left alone: `expire_tags` and commits expire them.
 */
final class ExpireSnapshotsProcedure(tables: String => FileStoreTable) extends ExpireProcedure(tables) {
  override def name(): String = "expire_snapshots"
  override protected val params = (required("table", StringType) +: bounds) :+ optional("options", StringType)
  override protected val output = Seq(StructField("deleted_snapshots_count", IntegerType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val expiry = config(args, table.options.expireConfig(System.currentTimeMillis()))
    Seq(InternalRow(new SnapshotExpiry(table).expire(expiry)))
  }
}

/**
 * `CALL sys.expire_tags(table, older_than)`: deletes the tags past their `time_retained`, and with
 * `older_than` every tag created before it (a tag without a creation time: its file's), with the
 * files only they kept. One row per deleted tag, or the single row `No expired tags.`.
 */
final class ExpireTagsProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "expire_tags"
  override protected val params = Seq(required("table", StringType), optional("older_than", StringType))
  override protected val output = Seq(StructField("expired_tags", StringType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val zone = ZoneId.of(SparkSession.active.sessionState.conf.sessionLocalTimeZone)
    val olderThan = args.string("older_than").map(TimeTravel.parseTimestamp("older_than", _, zone))
    val names = TagDeletion.expired(table, LocalDateTime.now(ZoneId.systemDefault()), olderThan)
    TagDeletion.delete(table, names)
    (if (names.isEmpty) Seq("No expired tags.") else names).map(n => InternalRow(UTF8String.fromString(n)))
  }
}

/**
 * `CALL sys.expire_changelogs(table, retain_max, retain_min, older_than, max_deletes, delete_all)`:
 * expires long-lived changelogs (Paimon's procedure); arguments left out take the table's
 * `changelog.*` options; `delete_all` removes every one.
 */
final class ExpireChangelogsProcedure(tables: String => FileStoreTable) extends ExpireProcedure(tables) {
  override def name(): String = "expire_changelogs"
  override protected val params = (required("table", StringType) +: bounds) :+ optional("delete_all", BooleanType)
  override protected val output = Seq(StructField("deleted_changelogs_count", IntegerType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val expiry = new ChangelogExpiry(table)
    val deleted = if (args.boolean("delete_all").contains(true)) expiry.expireAll()
      else expiry.expire(config(args, table.options.changelogExpireConfig(System.currentTimeMillis())))
    Seq(InternalRow(deleted))
  }
}
