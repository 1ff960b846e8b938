package paimonspark.table

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.fs.Path

import paimonspark.format.TablePaths
import paimonspark.format.metadata.{Snapshot, SnapshotJson}
import paimonspark.fs.{FileIO, PublishedFile}

/**
 * Finds and publishes `snapshot/snapshot-N` of one branch, or (`SnapshotManager.changelogs`) the
 * long-lived changelogs `changelog/changelog-N` that expiry leaves when the changelog outlives its
 * snapshots; both are snapshot JSON. The hints are only hints, read as Java reads them: LATEST is
 * trusted when the next id does not exist, EARLIEST when its file does; otherwise the directory is
 * listed. A missing or malformed hint is no hint. When a catalog keeps the snapshots (REST), the latest
 * is its answer, as Java's `SnapshotLoader` takes it, and a commit goes to it.
 */
final class SnapshotManager private (io: FileIO, dir: Path, prefix: String, catalog: Option[SnapshotCatalog])
    extends Serializable {

  def this(io: FileIO, paths: TablePaths, catalog: Option[SnapshotCatalog] = None) =
    this(io, paths.snapshotDir, TablePaths.SnapshotPrefix, catalog)

  private def file(id: Long) = new Path(dir, s"$prefix$id")
  private val latestHint = new Path(dir, TablePaths.LatestHint)
  private val earliestHint = new Path(dir, TablePaths.EarliestHint)

  def snapshotExists(id: Long): Boolean = io.existsPublished(file(id))

  def latestId(): Option[Long] = catalog match {
    case Some(c) => c.latest().map(_.id)
    case None => hinted.filter(snapshotExists).orElse(listIds().lastOption)
  }

  /** The id LATEST names when no next snapshot exists; whether its own file does is for the caller to find. */
  private def hinted: Option[Long] = hint(latestHint).filterNot(id => snapshotExists(id + 1))

  def earliestId(): Option[Long] = hintedEarliestId().orElse(listIds().headOption)

  /** The id EARLIEST names, when that snapshot exists. */
  def hintedEarliestId(): Option[Long] = hint(earliestHint).filter(snapshotExists)

  private def hint(file: Path): Option[Long] = io.readUtf8IfExists(file).flatMap(_.trim.toLongOption)

  def listIds(): Seq[Long] =
    io.list(dir).filter(PublishedFile.isComplete).flatMap(s => TablePaths.idOf(s.getPath.getName, prefix)).sorted

  /** The hinted snapshot read at once, one request fewer than checking that it exists first. */
  def latest(): Option[Snapshot] = catalog match {
    case Some(c) => c.latest()
    case None => hinted.flatMap(readIfExists).orElse(listIds().lastOption.map(read))
  }

  def read(id: Long): Snapshot =
    MetadataFile.read(io, file(id))(bytes => SnapshotJson.read(new String(bytes, UTF_8)))

  /** The snapshot, or None when it does not exist (never did, or expired meanwhile). */
  def readIfExists(id: Long): Option[Snapshot] =
    try Some(read(id))
    catch { case _: java.io.FileNotFoundException => None }

  /** The latest snapshot committed at or before `millis`, by a binary search over the retained ids. */
  def latestAtOrBefore(millis: Long): Option[Snapshot] = (earliestId(), latestId()) match {
    case (Some(first), Some(last)) =>
      var (lo, hi) = (first, last)
      var found: Option[Snapshot] = None
      while (lo <= hi) {
        val mid = lo + (hi - lo) / 2
        readIfExists(mid) match {
          case Some(s) if s.timeMillis <= millis => found = Some(s); lo = mid + 1
          case Some(_) => hi = mid - 1
          // Expired while searching: everything below is gone too.
          case None => lo = mid + 1
        }
      }
      found
    case _ => None
  }

  /** The earliest snapshot committed at or after `millis`. */
  def earliestAtOrAfter(millis: Long): Option[Snapshot] = latestAtOrBefore(millis - 1) match {
    case Some(before) => readIfExists(before.id + 1)
    case None => earliestId().flatMap(readIfExists).filter(_.timeMillis >= millis)
  }

  /**
   * Publishes a snapshot if its id is still free, the linearization point of every commit: its file, or a
   * commit to the catalog that keeps the snapshots, told what the commit changed in each partition.
   */
  def publish(snapshot: Snapshot, statistics: => Seq[PartitionStatistics] = Nil): Boolean = catalog match {
    case Some(c) => c.commit(snapshot, statistics)
    case None =>
      val won = io.publish(file(snapshot.id), SnapshotJson.write(snapshot).getBytes(UTF_8))
      if (won) writeHint(latestHint, snapshot.id)
      won
  }

  /** Puts back the file of a tagged snapshot that expired (rollback to the tag); atomic, like a commit. */
  def restore(snapshot: Snapshot): Unit = {
    io.publish(file(snapshot.id), SnapshotJson.write(snapshot).getBytes(UTF_8))
  }

  def delete(id: Long): Unit = io.delete(file(id), recursive = false)

  def deleteHints(): Unit = Seq(latestHint, earliestHint).foreach(io.delete(_, recursive = false))

  def writeLatestHint(id: Long): Unit = writeHint(latestHint, id)
  def writeEarliestHint(id: Long): Unit = writeHint(earliestHint, id)

  // Best effort, as in Java: a stale hint only costs readers a directory listing.
  private def writeHint(file: Path, id: Long): Unit =
    try io.writeUtf8(file, id.toString)
    catch { case _: Exception => () }
}

object SnapshotManager {
  /** The long-lived changelogs of one branch: `changelog/changelog-N`, with their own hints. */
  def changelogs(io: FileIO, paths: TablePaths): SnapshotManager =
    new SnapshotManager(io, paths.changelogDir, TablePaths.ChangelogPrefix, None)
}
