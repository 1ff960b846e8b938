package paimonspark.table.history

import java.time.{LocalDateTime, ZoneId}

import paimonspark.table.FileStoreTable

/**
 * Deletes tags with the files only they kept alive. The tag file goes first, so a process killed
 * half way leaves orphans (removed by orphan cleanup), never a tag whose files are gone. Files of a
 * tag whose snapshot is still retained are that snapshot's, and stay.
 */
object TagDeletion {
  def delete(table: FileStoreTable, names: Seq[String]): Unit = {
    val tags = names.map(n => n -> table.tagManager.read(n))
    tags.foreach { case (n, _) => table.tagManager.delete(n) }
    val snapshots = table.snapshotManager
    val expired = tags.map(_._2.snapshot).filterNot(s => snapshots.snapshotExists(s.id))
    if (expired.nonEmpty) {
      val files = new SnapshotFiles(table)
      // Every retained snapshot is weighed, not only the earliest (by the interval argument a file of
      // the tag that a newer snapshot holds is in the earliest too): after a fast_forward, main's
      // history joins two lineages.
      val kept = HistoryAnchors.of(table) ++ snapshots.listIds().flatMap(snapshots.readIfExists)
      val candidates = expired.flatMap(files.data).toSet
      val keptData = files.liveAmong(kept, candidates)
      val keptMeta = kept.flatMap(files.metadata(_)).toSet
      candidates.filterNot(keptData).foreach(table.io.delete(_, recursive = false))
      expired.flatMap(files.metadata(_)).distinct.filterNot(keptMeta).foreach(table.io.delete(_, recursive = false))
    }
  }

  /**
   * Tags past their `time_retained` as of `now`, and with `olderThanMillis` every tag created before
   * it; a tag without a creation time (one Paimon's older writers made) counts from its file's
   * modification time, as in Paimon's `expire_tags`.
   */
  def expired(table: FileStoreTable, now: LocalDateTime, olderThanMillis: Option[Long] = None): Seq[String] =
    table.tagManager.list().collect {
      case (name, tag) if tag.timeRetained.exists(r => tag.createTime.exists(c => c.plus(r).isBefore(now))) ||
          olderThanMillis.exists(limit => createdMillis(table, name, tag.createTime) < limit) => name
    }

  private def createdMillis(table: FileStoreTable, name: String, created: Option[LocalDateTime]): Long =
    created.map(_.atZone(ZoneId.systemDefault()).toInstant.toEpochMilli).getOrElse {
      val file = table.paths.tagFile(name)
      table.io.fileSystem(file).getFileStatus(file).getModificationTime
    }

  def expireByTime(table: FileStoreTable): Int = {
    val names = expired(table, LocalDateTime.now(ZoneId.systemDefault()))
    if (names.nonEmpty) delete(table, names)
    names.size
  }
}
