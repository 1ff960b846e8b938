package paimonspark.table

import java.nio.charset.StandardCharsets.UTF_8

import paimonspark.format.{Snapshot, SnapshotJson, TablePaths}
import paimonspark.fs.FileIO

/**
 * Finds and publishes `snapshot/snapshot-N`. The LATEST hint is only a hint, read
 * as Java reads them: LATEST is trusted when the next id does not exist, otherwise the directory
 * is listed; a missing or malformed hint is no hint.
 */
final class SnapshotManager(io: FileIO, paths: TablePaths) extends Serializable {

  def snapshotExists(id: Long): Boolean = io.exists(paths.snapshotFile(id))

  def latestId(): Option[Long] = {
    val hint = io.readUtf8IfExists(paths.latestHint).flatMap(_.trim.toLongOption)
    hint match {
      case Some(id) if snapshotExists(id) && !snapshotExists(id + 1) => Some(id)
      case _ => listIds().lastOption
    }
  }


  def listIds(): Seq[Long] =
    io.list(paths.snapshotDir).flatMap(s => TablePaths.idOf(s.getPath.getName, TablePaths.SnapshotPrefix)).sorted

  def latest(): Option[Snapshot] = latestId().map(read)

  def read(id: Long): Snapshot =
    MetadataFile.read(io, paths.snapshotFile(id))(bytes => SnapshotJson.read(new String(bytes, UTF_8)))

  /** Publishes a snapshot if its id is still free; the linearization point of every commit. */
  def publish(snapshot: Snapshot): Boolean = {
    io.mkdirs(paths.snapshotDir)
    val won = io.publish(paths.snapshotFile(snapshot.id), SnapshotJson.write(snapshot).getBytes(UTF_8))
    if (won) writeLatestHint(snapshot.id)
    won
  }

  // Best effort, as in Java: a stale hint only costs readers a directory listing.
  private def writeLatestHint(id: Long): Unit =
    try io.writeUtf8(paths.latestHint, id.toString)
    catch { case _: Exception => () }
}
