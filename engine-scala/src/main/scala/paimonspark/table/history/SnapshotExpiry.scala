package paimonspark.table.history

import org.apache.hadoop.fs.Path

import paimonspark.format.metadata.{FileSource, ManifestEntry}
import paimonspark.table.{ExpireConfig, FileStoreTable}
import paimonspark.table.options.ChangelogProducer

/**
 * Expires the old snapshots of one branch, deleting exactly the files nothing retained needs.
 *
 * Order, so that a process killed at any point leaves every retained snapshot readable and a rerun
 * finishes the job: (1) data files that the commits after the expired snapshots removed, (2) the
 * expired snapshots' manifests, then the lists that name them, (3) the snapshot files, oldest
 * first, (4) the EARLIEST hint. Until (3) nothing a retained snapshot reads is touched; a rerun
 * finds the remaining expired snapshots and, through their lists, what they still name; files
 * already deleted count as done.
 *
 * What stays: files of the first retained snapshot (the interval argument: a file removed by commit
 * N was live up to N-1 only, so it cannot be live in a retained snapshot), of every tag, and of
 * every snapshot and tag of every other branch, which share this table's files.
 *
 * When the changelog outlives snapshots (`changelog.*` retention longer than `snapshot.*`, Paimon's
 * decoupled lifecycle), each expired snapshot is first copied to `changelog/changelog-N`, and its
 * changes stay for [[ChangelogExpiry]]: changelog files and lists, and for a table without a
 * producer (whose changes are its commits' new files) the data lists and the files appends wrote.
 */
final class SnapshotExpiry(table: FileStoreTable) {
  private val snapshots = table.snapshotManager
  private val io = table.io

  /** Expires what `config` allows, counting from `latestId`; returns the number of snapshots expired. */
  def expire(config: ExpireConfig, latestId: => Option[Long] = snapshots.latestId()): Int = {
    val hinted = snapshots.hintedEarliestId()
    (hinted.orElse(snapshots.listIds().headOption), latestId) match {
      case (Some(earliest), Some(latest)) =>
        val end = ExpireRange.endExclusive(earliest, latest, table.consumerManager.minNextSnapshot(), config,
          id => snapshots.readIfExists(id).map(_.timeMillis))
        // As Paimon's expiry: with nothing to expire, the hint is written where it is missing, or every
        // commit's expiry would list all snapshots to find the earliest (10,000 of them in a streaming job's hour).
        if (end <= earliest && hinted.isEmpty) snapshots.writeEarliestHint(earliest)
        expireUntil(earliest, end)
      case _ => 0
    }
  }

  /** Expires the snapshots in [earliest, endExclusive). */
  def expireUntil(earliest: Long, endExclusive: Long): Int = {
    if (endExclusive <= earliest) return 0
    val expired = (earliest until endExclusive).flatMap(snapshots.readIfExists)
    if (expired.isEmpty) return 0
    val files = new SnapshotFiles(table)
    val firstKept = snapshots.read(endExclusive)
    val anchors = HistoryAnchors.of(table)
    val decoupled = table.options.changelogDecoupled
    // Without a producer a commit's changes are the files it appended; decoupled, they stay.
    val changesInData = decoupled && table.options.changelogProducer == ChangelogProducer.None
    // (1) A file a later commit removed was live only before it: in the expired range, or in a tag.
    val removed = ((earliest + 1) until endExclusive).flatMap(snapshots.readIfExists).appended(firstKept)
      .flatMap(files.removedBy).collect { case (e, path) if !(changesInData && appended(e)) => path }.toSet
    val keptData = files.liveAmong(anchors, removed)
    removed.filterNot(keptData).foreach(deleteFile)
    if (!decoupled) expired.flatMap(files.changelog).foreach(deleteFile)
    // (2) Manifests, lists and index files are shared by later snapshots: keep those the first kept one uses.
    val keptMeta = (firstKept +: anchors).flatMap(files.metadata(_)).toSet
    val doomed = expired.flatMap(files.metadata(_, dataLists = !changesInData, changelogList = !decoupled)).distinct
      .filterNot(keptMeta)
    // What a list names goes before the list, as in Paimon: a rerun after a kill finds the rest
    // through the lists still there.
    val roots = expired.flatMap(files.roots).toSet
    (doomed.filterNot(roots) ++ doomed.filter(roots)).foreach(deleteFile)
    // (3) and (4).
    val changelogs = table.changelogManager
    expired.foreach { s =>
      if (decoupled) changelogs.publish(s)
      snapshots.delete(s.id)
    }
    snapshots.writeEarliestHint(endExclusive)
    if (table.options.cleanEmptyDirectories) EmptyDirectories.clean(table, expired.flatMap(files.delta).flatMap(files.filesOf))
    expired.size
  }

  private def deleteFile(path: Path): Unit = io.delete(path, recursive = false)

  // Files of writers that predate file sources count as appended, as in Paimon.
  private def appended(e: ManifestEntry): Boolean = e.file.fileSource.forall(_ == FileSource.Append)
}
