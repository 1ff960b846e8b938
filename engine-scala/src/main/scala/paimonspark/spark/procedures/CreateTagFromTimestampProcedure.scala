package paimonspark.spark.procedures

import java.time.Instant

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.SnapshotNotFoundException
import paimonspark.table.FileStoreTable
import paimonspark.table.options.DurationText

/**
 * `CALL sys.create_tag_from_timestamp(table, tag, timestamp, time_retained)`: tags the first
 * snapshot committed at or after `timestamp` (epoch milliseconds), or the first tagged snapshot
 * that is, if it comes earlier (its snapshot may have expired), as Paimon does; without `timestamp`
 * the earliest. `create_tag_from_watermark(table, tag, watermark, time_retained)` tags the first
 * snapshot whose watermark is at or above `watermark`.
 */
final class CreateTagFromTimestampProcedure(tables: String => FileStoreTable, byWatermark: Boolean)
    extends BaseProcedure(tables) {
  private val point = if (byWatermark) "watermark" else "timestamp"

  override def name(): String = s"create_tag_from_$point"

  override protected val params = Seq(required("table", StringType), required("tag", StringType),
    if (byWatermark) required(point, LongType) else optional(point, LongType), optional("time_retained", StringType))
  override protected val output = Seq(StructField("tagName", StringType), StructField("snapshot", LongType),
    StructField("commit_time", LongType), StructField("watermark", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val tag = args.need("tag", args.string("tag"))
    val retained = args.string("time_retained").map(DurationText.parse("time_retained", _))
    val value = args.long(point).getOrElse(0L) // as in Paimon: no timestamp is the earliest snapshot
    val snapshot = (if (byWatermark) Watermarks.earliestAtOrAbove(table, value) else {
      (table.snapshotManager.earliestAtOrAfter(value).toSeq ++
        table.tagManager.list().map(_._2.snapshot).find(_.timeMillis >= value)).minByOption(_.id)
    }).getOrElse {
      val what = if (byWatermark) s"with a watermark at or above $value" else s"committed at or after ${Instant.ofEpochMilli(value)}"
      throw new SnapshotNotFoundException(snapshot = value.toString, message = s"$name: table ${table.name} has no snapshot $what")
    }
    table.tagManager.create(tag, snapshot, retained)
    Seq(InternalRow(UTF8String.fromString(tag), snapshot.id, snapshot.timeMillis,
      snapshot.watermark.map(w => UTF8String.fromString(w.toString)).orNull))
  }
}
