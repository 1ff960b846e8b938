package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.{InvalidOptionException, SnapshotNotFoundException}
import paimonspark.format.metadata.Snapshot
import paimonspark.table.FileStoreTable
import paimonspark.table.history.Rollback
import paimonspark.table.scan.TimeTravel

/**
 * Paimon's rollbacks, each returning the previous and the new current snapshot id:
 * - `rollback(table, version, snapshot, tag)`: `version` is a snapshot id or a tag name, `snapshot`
 *   and `tag` name one explicitly; a snapshot that expired can be rolled back to by its tag;
 * - `rollback_to_timestamp(table, timestamp)`: the latest snapshot committed at or before it (epoch ms);
 * - `rollback_to_watermark(table, watermark)`: the latest snapshot whose watermark is at or below it.
 */
final class RollbackProcedure(tables: String => FileStoreTable, to: RollbackProcedure.Target) extends BaseProcedure(tables) {
  import RollbackProcedure._

  override def name(): String = to match {
    case ByVersion => "rollback"
    case ByTimestamp => "rollback_to_timestamp"
    case ByWatermark => "rollback_to_watermark"
  }

  override protected val params = to match {
    case ByVersion => Seq(required("table", StringType), optional("version", StringType), optional("snapshot", LongType),
      optional("tag", StringType))
    case ByTimestamp => Seq(required("table", StringType), required("timestamp", LongType))
    case ByWatermark => Seq(required("table", StringType), required("watermark", LongType))
  }
  override protected val output = Seq(
    StructField("previous_snapshot_id", LongType, nullable = false),
    StructField("current_snapshot_id", LongType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    // As Paimon's procedure reads `version`: all digits name a snapshot, anything else a tag.
    lazy val version = Seq(
      args.string("version").map(v => v.trim.toLongOption.fold[TimeTravel](TimeTravel.TagName(v))(TimeTravel.SnapshotId)),
      args.long("snapshot").map(TimeTravel.SnapshotId),
      args.string("tag").map(TimeTravel.TagName)).flatten match {
      case Seq(one) => one
      case _ => throw new InvalidOptionException("version", "rollback: give exactly one of version, snapshot or tag")
    }
    val target = to match {
      case ByVersion => TimeTravel.resolve(table, version)
      case ByTimestamp => TimeTravel.resolve(table, TimeTravel.AtMillis(args.need("timestamp", args.long("timestamp"))))
      case ByWatermark =>
        val watermark = args.need("watermark", args.long("watermark"))
        Watermarks.latestAtOrBelow(table, watermark).getOrElse(throw new SnapshotNotFoundException(
          snapshot = watermark.toString, message = s"$name: table ${table.name} has no snapshot with a watermark at or " +
            s"below $watermark"))
    }
    val tag = Option.when(to == ByVersion)(version).collect { case TimeTravel.TagName(name) => name }
    Seq(InternalRow(Rollback.toSnapshot(table, target, tag), target.id))
  }
}

object RollbackProcedure {
  sealed trait Target
  case object ByVersion extends Target
  case object ByTimestamp extends Target
  case object ByWatermark extends Target
}

/** The retained snapshots by their watermark (Flink's writers set one; a batch write has none). */
object Watermarks {
  private def withWatermark(table: FileStoreTable): Seq[(Snapshot, Long)] = {
    val snapshots = table.snapshotManager
    snapshots.listIds().flatMap(snapshots.readIfExists).flatMap(s => s.watermark.filter(_ != Long.MinValue).map(s -> _))
  }

  def latestAtOrBelow(table: FileStoreTable, watermark: Long): Option[Snapshot] =
    withWatermark(table).filter(_._2 <= watermark).map(_._1).maxByOption(_.id)

  def earliestAtOrAbove(table: FileStoreTable, watermark: Long): Option[Snapshot] =
    withWatermark(table).filter(_._2 >= watermark).map(_._1).minByOption(_.id)
}
