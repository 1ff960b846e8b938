package paimonspark.table.changes

import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import paimonspark.format.metadata.{DataFileMeta, Snapshot}
import paimonspark.lsm.{KeyRanges, MergeEngineSpec}
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate}
import paimonspark.table.scan.ScanPlanner

/** One (partition, bucket) whose files differ between two states, with the files each side reads. */
final case class BucketDiff(partition: GenericInternalRow, partitionBytes: Array[Byte], bucket: Int,
    before: Seq[DataFileMeta], after: Seq[DataFileMeta])

/**
 * What a diff of two states reads (`incremental-between-scan-mode` = diff, and a range between
 * two tags): the buckets whose files changed, and in each the files that may hold a changed row.
 * For an append table those are the files only one side has. A primary-key table's row is the
 * merge of all versions of its key, so each side also reads the files both sides share whose key
 * range meets a file only one side has; a key outside all those ranges has the same versions on
 * both sides. Cost follows what changed, not the table.
 */
object SnapshotDiff {
  def plan(table: FileStoreTable, start: Option[Snapshot], end: Option[Snapshot], filter: Option[Predicate]): Seq[BucketDiff] = {
    val scan = new ScanPlanner(table)
    // First-row tables show only files above level 0, as their reads do.
    val firstRow = table.isPrimaryKeyTable && MergeEngineSpec.of(table.name, table.schema).engine == "first-row"
    def byBucket(s: Option[Snapshot]) = scan.plan(s, filter)
      .map(split => (ByteBuffer.wrap(split.partitionBytes), split.bucket) ->
        split.copy(files = split.files.filter(f => !firstRow || f.level > 0))).toMap
    val (before, after) = (byBucket(start), byBucket(end))
    val sharesVersions = if (table.isPrimaryKeyTable) Some(keyRanges(table)) else None
    (before.keySet ++ after.keySet).toSeq.sortBy(k => (k._2, k._1)).flatMap { k =>
      val b = before.get(k).toSeq.flatMap(_.files)
      val a = after.get(k).toSeq.flatMap(_.files)
      val (inB, inA) = (b.map(_.fileName).toSet, a.map(_.fileName).toSet)
      val (onlyB, onlyA) = (b.filterNot(f => inA(f.fileName)), a.filterNot(f => inB(f.fileName)))
      if (onlyB.isEmpty && onlyA.isEmpty) None
      else {
        val split = before.getOrElse(k, after(k))
        val shared = sharesVersions.toSeq.flatMap(ranges => b.filter(f => inA(f.fileName) && ranges.meetsAny(f, onlyB ++ onlyA)))
        Some(BucketDiff(split.partition, split.partitionBytes, split.bucket, onlyB ++ shared, onlyA ++ shared))
      }
    }
  }

  private def keyRanges(table: FileStoreTable): KeyRanges = {
    val layout = KeyLayout.of(table.location.toString, table.schema)
    new KeyRanges(layout.trimmedKeys.map(k => table.schema.field(k).dataType))
  }
}
