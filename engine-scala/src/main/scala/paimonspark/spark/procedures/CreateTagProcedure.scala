package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.SnapshotNotFoundException
import paimonspark.format.metadata.Snapshot
import paimonspark.table.FileStoreTable
import paimonspark.table.options.DurationText
import paimonspark.table.scan.TimeTravel

/**
 * `CALL sys.create_tag(table => 'db.t', tag => 'x', snapshot => 5, time_retained => '1 d')` and
 * `sys.replace_tag(...)` (same arguments, the tag must exist): the latest snapshot when `snapshot` is
 * omitted. A tag without `time_retained` is kept until deleted.
 */
final class CreateTagProcedure(tables: String => FileStoreTable, replace: Boolean) extends BaseProcedure(tables) {
  override def name(): String = if (replace) "replace_tag" else "create_tag"

  override protected val params = Seq(required("table", StringType), required("tag", StringType),
    optional("snapshot", LongType), optional("time_retained", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val tag = args.need("tag", args.string("tag"))
    // As Paimon's procedure: without `time_retained` the tag is kept until deleted.
    val retained = args.string("time_retained").map(DurationText.parse("time_retained", _))
    val snapshot = CreateTagProcedure.snapshotToTag(table, args.long("snapshot"), name)
    if (replace) table.tagManager.replace(tag, snapshot, retained) else table.tagManager.create(tag, snapshot, retained)
    Seq(InternalRow(true))
  }
}

object CreateTagProcedure {
  /** The snapshot a new tag is on: `id` (or a tag holding it, if it expired), else the latest. */
  def snapshotToTag(table: FileStoreTable, id: Option[Long], what: String): Snapshot = id match {
    case Some(id) => TimeTravel.resolve(table, TimeTravel.SnapshotId(id))
    case None => table.snapshotManager.latest().getOrElse(throw new SnapshotNotFoundException(snapshot = "latest",
      message = s"$what: table ${table.name} has no snapshot to tag yet"))
  }
}
