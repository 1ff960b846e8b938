package paimonspark.table.history

import org.apache.hadoop.fs.Path

import paimonspark.table.{ExpireConfig, FileStoreTable}
import paimonspark.table.options.ChangelogProducer

/**
 * Expires the long-lived changelogs of one branch (`changelog/changelog-N`, left by snapshot
 * expiry under Paimon's decoupled lifecycle) by the `changelog.*` retention options, as Paimon's
 * changelog expiry does: never a changelog a consumer has not read, never the newest one (the next
 * expiry keeps what it names), at most `snapshot.expire.limit` at a time.
 *
 * Each changelog takes its changes with it: its changelog files and lists, or, for a table without
 * a producer, the files its commit removed (kept for the changelogs that appended them) and its data
 * lists. What the next changelog, the earliest snapshot, a tag or another branch still uses stays.
 * Files go before the changelog file that names them, so a rerun after a kill finishes the job.
 */
final class ChangelogExpiry(table: FileStoreTable) {
  private val changelogs = table.changelogManager
  private val io = table.io

  /** Expires what `config` allows; returns the number of changelogs expired. */
  def expire(config: ExpireConfig): Int =
    (changelogs.earliestId(), changelogs.latestId(), table.snapshotManager.latestId()) match {
      case (Some(earliest), Some(newest), Some(latestSnapshot)) =>
        val consumers = table.consumerManager.minNextSnapshot().fold(newest)(math.min(_, newest))
        val end = ExpireRange.endExclusive(earliest, latestSnapshot, Some(consumers), config,
          id => changelogs.readIfExists(id).map(_.timeMillis))
        expireUntil(earliest, end)
      case _ => 0
    }

  /** Expires the changelogs in [earliest, endExclusive). */
  def expireUntil(earliest: Long, endExclusive: Long): Int = {
    val expired = (earliest until endExclusive).flatMap(changelogs.readIfExists)
    if (expired.isEmpty) return 0
    val files = new SnapshotFiles(table)
    val anchors = HistoryAnchors.of(table)
    val kept = changelogs.readIfExists(endExclusive).toSeq ++ table.snapshotManager.earliestId()
      .flatMap(table.snapshotManager.readIfExists) ++ anchors
    // As in snapshot expiry: without a producer a commit's changes are its data files.
    val changesInData = table.options.changelogProducer == ChangelogProducer.None
    val removed = if (changesInData) expired.flatMap(files.removedBy).map(_._2).toSet else Set.empty[Path]
    val keptData = files.liveAmong(kept, removed)
    val changelogFiles = if (changesInData) Nil else expired.flatMap(files.changelog)
    (changelogFiles ++ removed.filterNot(keptData)).foreach(deleteFile)
    val keptMeta = kept.flatMap(files.metadata(_)).toSet
    val doomed = expired.flatMap(files.metadata(_, dataLists = changesInData, changelogList = !changesInData)).distinct
      .filterNot(keptMeta)
    val roots = expired.flatMap(files.roots).toSet
    (doomed.filterNot(roots) ++ doomed.filter(roots)).foreach(deleteFile)
    expired.foreach(c => changelogs.delete(c.id))
    changelogs.writeEarliestHint(endExclusive)
    expired.size
  }

  /** Expires every long-lived changelog, as `expire_changelogs(delete_all => true)`; their hints go too. */
  def expireAll(): Int = changelogs.latestId().fold(0) { newest =>
    val deleted = expireUntil(changelogs.earliestId().getOrElse(newest), newest + 1)
    changelogs.deleteHints()
    deleted
  }

  private def deleteFile(path: Path): Unit = io.delete(path, recursive = false)
}
