package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.SnapshotNotFoundException
import paimonspark.table.FileStoreTable
import paimonspark.table.options.DurationText

/**
 * `CALL sys.create_tag_from_timestamp(table, tag, timestamp, time_retained)`: tags the first
 * snapshot committed at or after `timestamp` (epoch milliseconds), or the first tagged snapshot
 * that is, if it comes earlier (its snapshot may have expired), as Paimon does.
 */
final class CreateTagFromTimestampProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "create_tag_from_timestamp"

  override protected val params = Seq(required("table", StringType), required("tag", StringType),
    required("timestamp", LongType), optional("time_retained", StringType))
  override protected val output = Seq(
    StructField("tagName", StringType, nullable = false),
    StructField("snapshot", LongType, nullable = false),
    StructField("commit_time", LongType, nullable = false),
    StructField("watermark", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val tag = args.need("tag", args.string("tag"))
    val retained = args.string("time_retained").map(DurationText.parse("time_retained", _))
    val millis = args.need("timestamp", args.long("timestamp"))
    val candidates = table.snapshotManager.earliestAtOrAfter(millis).toSeq ++
      table.tagManager.list().map(_._2.snapshot).find(_.timeMillis >= millis)
    val snapshot = candidates.minByOption(_.id).getOrElse(throw new SnapshotNotFoundException(snapshot = java.time.Instant.ofEpochMilli(millis).toString, message =
      s"$name: table ${table.name} has no snapshot committed at or after ${java.time.Instant.ofEpochMilli(millis)}"))
    table.tagManager.create(tag, snapshot, retained)
    Seq(InternalRow(UTF8String.fromString(tag), snapshot.id, snapshot.timeMillis,
      snapshot.watermark.map(w => UTF8String.fromString(w.toString)).orNull))
  }
}
