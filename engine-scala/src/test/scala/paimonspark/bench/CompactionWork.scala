package paimonspark.bench

import scala.jdk.CollectionConverters._

import org.apache.paimon.Snapshot
import org.apache.paimon.Snapshot.CommitKind
import org.apache.paimon.fs.Path
import org.apache.paimon.fs.local.LocalFileIO
import org.apache.paimon.manifest.{FileKind, ManifestEntry}
import org.apache.paimon.table.{FileStoreTable, FileStoreTableFactory}
import org.apache.paimon.table.source.ScanMode

/**
 * What compaction did in each batch of an upsert ingest, read back from the table's snapshots and manifests by
 * Apache Paimon's Java core, so that ours and Paimon's writer are measured by the same code: a batch is an APPEND
 * snapshot and the COMPACT snapshots after it (a batch commit with inline compaction publishes the two), and the
 * last BATCHES of them are reported. Rows read by compaction are those of the files its COMPACT snapshots delete,
 * rows written those of the files they add; a file deleted and added again under its own name was moved to
 * another level without being rewritten (universal compaction's upgrade), counted apart as moved: the writer
 * did not write it, and read it only to look its keys up (Paimon's Java writer does, for a level-0 file, with
 * a lookup changelog producer or deletion vectors). After each batch: the sorted runs (each level-0 file,
 * and each other level holding files) and the rows on disk of every bucket.
 *
 * usage: CompactionWork TABLE_DIR BATCHES   (prints CompactionWork.json of the table's last BATCHES batches)
 */
object CompactionWork {
  final case class Batch(read: Long, written: Long, moved: Long, runs: Seq[Int], rows: Seq[Long])

  def main(args: Array[String]): Unit = {
    val Array(dir, batches) = args
    println(json(of(FileStoreTableFactory.create(LocalFileIO.create(), new Path(dir)), batches.toInt)))
  }

  def of(table: FileStoreTable, batches: Int): Seq[Batch] = {
    val snapshots = table.snapshotManager()
    val all = (snapshots.earliestSnapshotId().longValue to snapshots.latestSnapshotId().longValue)
      .map(snapshots.snapshot)
    def files(snapshot: Snapshot, mode: ScanMode): Seq[ManifestEntry] =
      table.store().newScan().withSnapshot(snapshot).withKind(mode).plan().files().asScala.toSeq
    // Each APPEND (or OVERWRITE) snapshot starts a batch; COMPACT snapshots belong to the batch before them.
    val starts = all.indices.filter(i => all(i).commitKind() != CommitKind.COMPACT)
    val groups = starts.zip(starts.drop(1) :+ all.size).map { case (from, until) => all.slice(from, until) }
    groups.takeRight(batches).map { group =>
      val delta = group.filter(_.commitKind() == CommitKind.COMPACT).map(s => files(s, ScanMode.DELTA))
      val Seq(read, written, moved) = delta.map(rewritten).foldLeft(Seq(0L, 0L, 0L))(_.zip(_).map(p => p._1 + p._2))
      val live = files(group.last, ScanMode.ALL).groupBy(_.bucket()).toSeq.sortBy(_._1).map(_._2.map(_.file()))
      val runs = live.map(fs => fs.count(_.level() == 0) + fs.map(_.level()).filter(_ > 0).toSet.size)
      Batch(read, written, moved, runs, live.map(_.map(_.rowCount()).sum))
    }
  }

  /** Rows of the files a COMPACT snapshot deleted and added, less those it only moved; and those it moved. */
  private def rewritten(delta: Seq[ManifestEntry]): Seq[Long] = {
    val (deleted, added) = delta.partition(_.kind() == FileKind.DELETE)
    val moved = deleted.map(_.file().fileName()).toSet & added.map(_.file().fileName()).toSet
    def isMoved(e: ManifestEntry) = moved(e.file().fileName())
    def rows(entries: Seq[ManifestEntry]) = entries.map(_.file().rowCount()).sum
    Seq(rows(deleted.filterNot(isMoved)), rows(added.filterNot(isMoved)), rows(deleted.filter(isMoved)))
  }

  /**
   * A JSON list, one object per batch: rows `read`, `written` and `moved` by compaction, `runs` and `rows` per
   * bucket after it.
   */
  def json(batches: Seq[Batch]): String = batches.map { b =>
    s"""{"read": ${b.read}, "written": ${b.written}, "moved": ${b.moved}, """ +
      s""""runs": ${b.runs.mkString("[", ", ", "]")}, "rows": ${b.rows.mkString("[", ", ", "]")}}"""
  }.mkString("[", ", ", "]")
}
