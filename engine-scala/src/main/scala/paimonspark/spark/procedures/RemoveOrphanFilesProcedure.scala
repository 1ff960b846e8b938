package paimonspark.spark.procedures

import java.time.ZoneId

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.history.OrphanFiles
import paimonspark.table.scan.TimeTravel

/**
 * `CALL sys.remove_orphan_files(table => 'db.t', older_than => '2026-11-22 00:00:00', dry_run => true)`:
 * removes files under the table that no snapshot, tag or branch references and that are older than
 * `older_than` (default: one day ago), so a running writer's new files are never touched; `db.*`
 * does so for every table of database `db`. Returns Paimon's two columns, the count and the bytes,
 * and a third, `file_path`: on a dry run one row per file that would be removed.
 */
final class RemoveOrphanFilesProcedure(tables: String => FileStoreTable, catalogTables: () => Seq[(String, String)])
    extends BaseProcedure(tables) {
  override def name(): String = "remove_orphan_files"
  override protected val params = Seq(required("table", StringType), optional("older_than", StringType),
    Param("dry_run", BooleanType, Some("false")), optional("parallelism", IntegerType), optional("mode", StringType))
  override protected val output = Seq(
    StructField("deletedFileCount", LongType, nullable = false),
    StructField("deletedFileTotalLenInBytes", LongType, nullable = false),
    StructField("file_path", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val named = args.need("table", args.string("table")).trim
    val targets = if (!named.endsWith(".*")) Seq(args.table) else {
      val db = named.stripSuffix(".*")
      val all = catalogTables()
      val found = all.collect { case (d, t) if d == db => tables(s"$d.$t") }
      if (found.isEmpty && !all.exists(_._1 == db)) {
        throw new InvalidOptionException("table", s"$name: table => '$named': there is no database '$db'")
      }
      found
    }
    val now = System.currentTimeMillis()
    val zone = ZoneId.of(SparkSession.active.sessionState.conf.sessionLocalTimeZone)
    val olderThan = args.string("older_than").map(TimeTravel.parseTimestamp("older_than", _, zone))
      .getOrElse(now - OrphanFiles.DefaultAgeMillis)
    if (olderThan > now) {
      throw new InvalidOptionException("older_than", s"$name: older_than ${args.string("older_than").get} is in the " +
        "future; files a running writer just wrote would count as orphans")
    }
    // `parallelism` and `mode` shape Paimon's distributed listing; this one lists on the driver.
    args.string("mode").map(_.trim.toUpperCase).filterNot(Set("DISTRIBUTED", "LOCAL")).foreach { m =>
      throw new InvalidOptionException("mode", s"$name: mode must be DISTRIBUTED or LOCAL, not '$m'")
    }
    val dryRun = args.boolean("dry_run").getOrElse(false)
    val orphans = targets.flatMap { table =>
      val found = new OrphanFiles(table).find(olderThan)
      if (!dryRun) found.foreach(o => table.io.delete(o.path, recursive = false))
      found
    }
    val count = orphans.size.toLong
    val bytes = orphans.map(_.size).sum
    if (dryRun && orphans.nonEmpty) orphans.map(o => InternalRow(count, bytes, UTF8String.fromString(o.path.toString)))
    else Seq(InternalRow(count, bytes, null))
  }
}
