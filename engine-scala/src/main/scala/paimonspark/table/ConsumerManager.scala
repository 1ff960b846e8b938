package paimonspark.table

import com.fasterxml.jackson.databind.ObjectMapper

import paimonspark.format.TablePaths
import paimonspark.fs.FileIO

/**
 * The progress of streaming consumers, `consumer/consumer-<id>` holding `{"nextSnapshot": N}`.
 * Expiry keeps every snapshot from the smallest `nextSnapshot` on, so a consumer can resume.
 */
final class ConsumerManager(io: FileIO, paths: TablePaths) extends Serializable {

  /** (consumer id, next snapshot id), sorted by id. */
  def list(): Seq[(String, Long)] =
    io.list(paths.consumerDir).map(_.getPath.getName).filter(_.startsWith(TablePaths.ConsumerPrefix)).sorted
      .flatMap { file =>
        val text = io.readUtf8IfExists(new org.apache.hadoop.fs.Path(paths.consumerDir, file))
        text.flatMap(t => Option(new ObjectMapper().readTree(t).get("nextSnapshot")))
          .map(n => file.substring(TablePaths.ConsumerPrefix.length) -> n.asLong())
      }

  def minNextSnapshot(): Option[Long] = list().map(_._2).minOption

  /** Deletes the consumers whose progress was last recorded before `millis`: jobs that are gone. */
  def expireIdleSince(millis: Long): Unit =
    io.list(paths.consumerDir).filter(f => f.getPath.getName.startsWith(TablePaths.ConsumerPrefix) &&
      f.getModificationTime < millis).foreach(f => io.delete(f.getPath, recursive = false))

  /** Deletes consumer `id`, if it exists. */
  def delete(id: String): Unit = io.delete(file(id), recursive = false)

  /** Deletes the consumers whose id matches `including` and not `excluding` (regular expressions). */
  def clear(including: String, excluding: Option[String]): Unit =
    list().map(_._1).filter(id => id.matches(including) && !excluding.exists(id.matches)).foreach(delete)

  private def file(id: String) = new org.apache.hadoop.fs.Path(paths.consumerDir, TablePaths.ConsumerPrefix + id)

  /** Records that consumer `id` reads on from snapshot `nextSnapshot`, replacing its file whole. */
  def record(id: String, nextSnapshot: Long): Unit = {
    io.overwrite(file(id), s"""{"nextSnapshot":$nextSnapshot}""".getBytes(java.nio.charset.StandardCharsets.UTF_8))
  }
}
