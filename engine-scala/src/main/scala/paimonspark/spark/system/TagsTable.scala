package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/** `t$tags`: one row per tag, by the id of its snapshot. */
final class TagsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("tag_name", StringType, nullable = false),
    StructField("snapshot_id", LongType, nullable = false),
    StructField("schema_id", LongType, nullable = false),
    StructField("commit_time", TimestampNTZType, nullable = false),
    StructField("record_count", LongType),
    StructField("create_time", TimestampNTZType),
    StructField("time_retained", StringType)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val wanted = hints.strings("tag_name")
    at.tagManager.list().filter { case (name, _) => wanted.forall(_.contains(name)) }.map { case (name, tag) =>
      val s = tag.snapshot
      InternalRow(str(name), s.id, s.schemaId, localTime(s.timeMillis), s.totalRecordCount,
        tag.createTime.map(t => Long.box(localTime(t))).orNull, str(tag.timeRetained.map(_.toString)))
    }
  }
}
