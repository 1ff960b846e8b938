package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.history.Rollback
import paimonspark.table.scan.TimeTravel

/**
 * `CALL sys.rollback(table => 'db.t', version => '5')`: a snapshot id or a tag name (`snapshot =>`
 * and `tag =>` name one explicitly); a snapshot that expired can be rolled back to by its tag. `CALL sys.rollback_to_timestamp(table, timestamp)` rolls back
 * to the latest snapshot committed at or before `timestamp` (epoch milliseconds).
 */
final class RollbackProcedure(tables: String => FileStoreTable, byTimestamp: Boolean) extends BaseProcedure(tables) {
  override def name(): String = if (byTimestamp) "rollback_to_timestamp" else "rollback"

  override protected val params =
    if (byTimestamp) Seq(required("table", StringType), required("timestamp", LongType))
    else Seq(required("table", StringType), optional("version", StringType), optional("tag", StringType),
      optional("snapshot", LongType))
  override protected val output = Seq(
    StructField("previous_snapshot_id", LongType, nullable = false),
    StructField("current_snapshot_id", LongType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val point =
      if (byTimestamp) TimeTravel.AtMillis(args.need("timestamp", args.long("timestamp")))
      // As Paimon's procedure reads `version`: all digits name a snapshot, anything else a tag.
      else Seq(args.string("version").map(v => v.trim.toLongOption.fold[TimeTravel](TimeTravel.TagName(v))(TimeTravel.SnapshotId)),
        args.string("tag").map(TimeTravel.TagName),
        args.long("snapshot").map(TimeTravel.SnapshotId)).flatten match {
        case Seq(one) => one
        case _ => throw new InvalidOptionException("version", "rollback: give exactly one of version, tag or snapshot")
      }
    val target = TimeTravel.resolve(table, point)
    Seq(InternalRow(Rollback.toSnapshot(table, target), target.id))
  }
}
