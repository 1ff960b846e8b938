package paimonspark.table.write

import java.nio.ByteBuffer

import paimonspark.{CommitConflictException, InvalidDataException}
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.lsm.KeyRanges
import paimonspark.table.{FileStoreTable, KeyLayout, ManifestStore, PartitionStatistics, Predicate, TableOptions}
import paimonspark.table.iceberg.IcebergCommit
import paimonspark.table.scan.PartitionFilter

/** Which live files a commit replaces. */
sealed trait OverwriteScope
object OverwriteScope {
  case object WholeTable extends OverwriteScope
  /** Partitions whose values match a predicate over partition columns (static overwrite). */
  final case class Matching(filter: Predicate) extends OverwriteScope
  /** The partitions the new files belong to (dynamic partition overwrite). */
  case object WrittenPartitions extends OverwriteScope
  /**
   * Exactly these files, read by a copy-on-write DELETE, UPDATE or MERGE; each must still be live,
   * or another commit changed what the statement read and it fails rather than lose that change.
   */
  final case class Files(ids: Set[FileIdentifier]) extends OverwriteScope
  /**
   * No file: these files, whose rows a DELETE, UPDATE or MERGE with deletion vectors marked, stay
   * and must still be live (a compaction that rewrote one meanwhile would bring its rows back). As
   * in Paimon, such a commit is of kind OVERWRITE.
   */
  final case class Marked(ids: Set[FileIdentifier]) extends OverwriteScope
  /**
   * The partitions of these files, whole (a rescale rewrote them from exactly these files): every
   * live file there must still be one of them, or a commit since added or removed rows it did not read.
   */
  final case class PartitionsOf(ids: Set[FileIdentifier]) extends OverwriteScope
}

/**
 * The one commit operation every write mode uses: add files, optionally replacing a scope of live
 * files, as one new snapshot. The snapshot is published by create-if-absent; a writer that loses
 * the race re-bases on the new latest snapshot and tries again. An overwrite whose files to
 * replace were meanwhile removed by someone else fails with [[CommitConflictException]].
 */
final class TableCommit(table: FileStoreTable, commitUser: String) {
  private val partitionTypes = table.schema.partitionRowType.map(_.withNullable(true))
  private val partitions = new PartitionFilter(table.schema)

  /**
   * Commits and returns the new snapshot id, or None when there was nothing to commit. `changelog`
   * files (the `input` producer's) are listed in the snapshot's changelog manifest list. A write to
   * fixed buckets says at which snapshot it planned them (`bucketsPlannedAt`, 0 for none); a
   * cross-partition write, at which it read where the keys live (`keysReadAt`).
   */
  def commit(added: Seq[ManifestEntry], overwrite: Option[OverwriteScope], index: Seq[IndexChange] = Nil,
      changelog: Seq[ManifestEntry] = Nil, identifier: Long = SnapshotJson.BatchCommitIdentifier,
      bucketsPlannedAt: Option[Long] = None, keysReadAt: Option[Long] = None): Option[Snapshot] = {
    val writtenPartitions = added.map(_.partitionKey).toSet
    val nothingToReplace = added.isEmpty && (overwrite.contains(OverwriteScope.WrittenPartitions) ||
      overwrite.contains(OverwriteScope.Files(Set.empty)) || (overwrite.exists(_.isInstanceOf[OverwriteScope.Marked]) &&
      index.isEmpty))
    if ((added.isEmpty && overwrite.isEmpty) || nothingToReplace) return None

    val partitionInScope: Array[Byte] => Boolean = overwrite match {
      case Some(OverwriteScope.WholeTable) => _ => true
      case Some(OverwriteScope.WrittenPartitions) => p => writtenPartitions.contains(ByteBuffer.wrap(p))
      case Some(OverwriteScope.Matching(filter)) => p => partitions.mayMatch(filter, BinaryRow.deserialize(partitionTypes, p))
      case Some(OverwriteScope.PartitionsOf(ids)) =>
        val rewritten = ids.map(_.partition)
        p => rewritten.contains(ByteBuffer.wrap(p))
      case Some(OverwriteScope.Files(_)) | Some(OverwriteScope.Marked(_)) | None => _ => false
    }
    val kind = if (overwrite.isDefined) CommitKind.Overwrite else CommitKind.Append
    // Overwritten partitions of a dynamic-bucket table lose their HASH index with their data: the
    // write assigned its keys from an empty index, and its index files are all there is now.
    val partitionsReplaced = overwrite.exists {
      case OverwriteScope.Files(_) | OverwriteScope.Marked(_) => false
      case _ => true
    }
    // So do a deletion-vector table's vectors, which mark rows of the replaced files.
    val indexReset = if (partitionsReplaced && ((table.isPrimaryKeyTable && table.options.bucket == -1) ||
        table.options.deletionVectors)) {
      Some((e: IndexFileEntry) => partitionInScope(e.partition))
    } else None
    index.find(c => indexReset.exists(reset => c.entries.exists(!reset(_)))).foreach { c =>
      throw new InvalidDataException(s"table ${table.location}: an overwrite wrote rows to a partition outside the " +
        s"partitions it replaces (bucket ${c.bucket}); a dynamic-bucket table can only take them from an " +
        "empty index where the partition is replaced; nothing was committed")
    }
    run(added, kind, (store, base) => { keysReadAt.foreach(checkKeysStayed); overwrite } match {
      case None =>
        bucketsPlannedAt.foreach(checkBucketCounts(store, base, added, _))
        Nil
      case Some(OverwriteScope.Files(ids)) =>
        val live = store.liveFiles(base, e => ids(e.identifier))
        val gone = ids -- live.map(_.identifier)
        if (gone.nonEmpty) throw deletionConflict(gone)
        live
      case Some(OverwriteScope.Marked(ids)) =>
        val gone = ids -- store.liveFiles(base, e => ids(e.identifier)).map(_.identifier)
        if (gone.nonEmpty) throw deletionConflict(gone)
        Nil
      case Some(OverwriteScope.PartitionsOf(ids)) =>
        val live = store.liveFiles(base, e => partitionInScope(e.partition))
        val gone = ids -- live.map(_.identifier)
        if (gone.nonEmpty) throw deletionConflict(gone)
        live.find(e => !ids(e.identifier)).foreach { e =>
          throw new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent " +
            s"commit: file ${e.file.fileName} was added to a partition this commit rewrites; nothing was committed")
        }
        live
      case Some(_) => store.liveFiles(base, e => partitionInScope(e.partition))
    }, index, indexReset, changelog, identifier)
  }

  /**
   * Whether this commit user already committed `identifier` (a streaming micro-batch): its latest
   * snapshot, found walking back from the latest one, has that identifier or a later one. Snapshots
   * of one user carry growing identifiers, so the walk stops at the user's newest snapshot.
   */
  def committed(identifier: Long): Boolean = {
    val snapshots = table.snapshotManager
    val earliest = snapshots.earliestId().getOrElse(1L)
    snapshots.latestId().toSeq.flatMap(latest => (latest to earliest by -1).iterator.flatMap(snapshots.readIfExists)
      .find(_.commitUser == commitUser)).headOption.exists(_.commitIdentifier >= identifier)
  }

  /**
   * Paimon's `compact_manifest`: a COMPACT snapshot with the same files, its base manifests fully
   * compacted whatever their size (Paimon merges with a minimum count and a threshold of 1). None
   * when the table has no snapshot.
   */
  def compactManifests(): Option[Long] = if (table.snapshotManager.latestId().isEmpty) None else {
    val merging = table.withDynamicOptions(Map(TableOptions.ManifestMergeMinCount -> "1",
      TableOptions.ManifestFullCompactionThreshold -> "1 b"))
    new TableCommit(merging, commitUser).run(Nil, CommitKind.Compact, (_, _) => Nil).map(_.id)
  }

  /**
   * Commits a compaction: `compacted` files are replaced by `added` in a COMPACT snapshot. Fails with
   * [[CommitConflictException]], and commits nothing, when another commit removed one of the
   * compacted files (a concurrent compaction of the same bucket) or when the result would have
   * overlapping key ranges within a level above 0. The `added` files are the compaction's own, so
   * a failed commit deletes them (nothing else could ever reference them), except files that were
   * only moved to another level: those are still live at their old one.
   */
  def compact(compacted: Seq[ManifestEntry], added: Seq[ManifestEntry], changelog: Seq[ManifestEntry] = Nil,
      index: Seq[IndexChange] = Nil): Option[Long] = {
    if (compacted.isEmpty) return None
    val buckets = compacted.map(e => (e.partitionKey, e.bucket)).toSet
    val ids = compacted.map(_.identifier).toSet
    try run(added, CommitKind.Compact, (store, base) => {
      val live = store.liveFiles(base, e => buckets.contains((e.partitionKey, e.bucket)))
      val replaced = live.filter(e => ids.contains(e.identifier))
      val gone = ids -- replaced.map(_.identifier)
      if (gone.nonEmpty) throw deletionConflict(gone)
      checkKeyRanges(live.filterNot(e => ids.contains(e.identifier)) ++ added)
      replaced
    }, index = index, changelog = changelog).map(_.id)
    catch {
      case e: Throwable =>
        TableCommit.discardCompaction(table, compacted, added, changelog, index)
        throw e
    }
  }

  /**
   * The index files of the latest snapshot, less those `reset` drops, with those this commit rewrote
   * replaced. A bucket whose index another writer changed since this one read it is a conflict:
   * merging would lose keys.
   */
  private def indexed(store: ManifestStore, latest: Option[Snapshot], changes: Seq[IndexChange],
      reset: Option[IndexFileEntry => Boolean]): Seq[IndexFileEntry] = {
    val current = store.indexFiles(latest).filterNot(e => reset.exists(_(e)))
    def slot(e: IndexFileEntry) = (e.partitionKey, e.bucket, e.indexType)
    val bySlot = current.groupBy(slot).map { case (k, es) => k -> es.map(_.fileName).toSet }
    changes.foreach { c =>
      if (bySlot.getOrElse(c.slot, Set.empty) != c.replaces) {
        val what = if (c.indexType == IndexManifestAvro.HashIndex) "HASH index" else "deletion vectors"
        val why = if (c.indexType == IndexManifestAvro.HashIndex) "dynamic-bucket tables take one writer at a time"
          else "another compaction of the bucket committed first"
        throw new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent commit: the " +
          s"$what of bucket ${c.bucket} changed while this write ran ($why); nothing was committed")
      }
    }
    val replaced = changes.map(_.slot).toSet
    current.filterNot(e => replaced(slot(e))) ++ changes.flatMap(_.entries)
  }

  /**
   * Paimon's check that a partition's files keep one bucket count: if an overwrite (a rescale)
   * committed since the write planned its buckets, the partitions it wrote must still have the
   * count it wrote with. A snapshot expired meanwhile counts as one that may have been.
   */
  private def checkBucketCounts(store: ManifestStore, base: Seq[ManifestFileMeta], added: Seq[ManifestEntry],
      plannedAt: Long): Unit = {
    val snapshots = table.snapshotManager
    val overwritten = snapshots.latestId().exists(latest => (plannedAt + 1 to latest).exists(id =>
      snapshots.readIfExists(id).forall(_.commitKind == CommitKind.Overwrite)))
    val counts = added.filter(_.totalBuckets > 0).map(e => e.partitionKey -> e.totalBuckets).toMap
    if (overwritten && counts.nonEmpty) {
      store.liveFiles(base, e => counts.contains(e.partitionKey))
        .find(e => e.totalBuckets > 0 && e.totalBuckets != counts(e.partitionKey)).foreach { e =>
          throw new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent " +
            s"commit: Total buckets of partition '${table.partitionPath(e.partition)}' changed from ${e.totalBuckets} to " +
            s"${counts(e.partitionKey)} without overwrite. Give up committing.")
        }
    }
  }

  /**
   * A cross-partition write put each key where the table held it at snapshot `readAt`: a commit
   * since that wrote rows (anything but a compaction) may have put a key elsewhere, and this write
   * would then leave it in two partitions. As in Paimon, such tables take one writer at a time.
   */
  private def checkKeysStayed(readAt: Long): Unit = {
    val snapshots = table.snapshotManager
    snapshots.latestId().toSeq.flatMap(latest => readAt + 1 to latest).find(id =>
      snapshots.readIfExists(id).forall(s => s.commitKind == CommitKind.Append || s.commitKind == CommitKind.Overwrite))
      .foreach { id =>
        throw new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent " +
          s"commit: snapshot $id wrote rows after this cross-partition write looked its keys up at snapshot $readAt " +
          "(a cross-partition table takes one writer at a time); nothing was committed")
      }
  }

  private def deletionConflict(gone: Set[FileIdentifier]): CommitConflictException =
    new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent commit: " +
      s"${gone.size} file(s) this commit replaces were already removed (e.g. ${gone.head.fileName}); " +
      "nothing was committed")

  /** Files at one level above 0 of one bucket must not overlap: readers take each such level as one run. */
  private def checkKeyRanges(entries: Seq[ManifestEntry]): Unit = if (table.isPrimaryKeyTable) {
    val ranges = new KeyRanges(KeyLayout.of(table.location.toString, table.schema).trimmedKeys.map(k =>
      table.schema.field(k).dataType))
    entries.filter(_.file.level > 0).groupBy(e => (e.partitionKey, e.bucket, e.file.level)).foreach {
      case ((_, bucket, level), es) => ranges.firstOverlap(es.map(_.file)).foreach { case (a, b) =>
        throw new CommitConflictException(table.name, s"Commit to table ${table.location} conflicts with a concurrent commit: " +
          s"files ${a.fileName} and ${b.fileName} of bucket $bucket, level $level would overlap in key range; " +
          "nothing was committed")
      }
    }
  }

  /**
   * The commit loop: `replacing` names the live files the new snapshot removes, computed afresh on
   * each attempt (and may refuse the commit); a retry fails if files planned on the first attempt
   * are gone.
   */
  private def run(
      added: Seq[ManifestEntry],
      kind: String,
      replacing: (ManifestStore, Seq[ManifestFileMeta]) => Seq[ManifestEntry],
      index: Seq[IndexChange] = Nil,
      indexReset: Option[IndexFileEntry => Boolean] = None,
      changelog: Seq[ManifestEntry] = Nil,
      identifier: Long = SnapshotJson.BatchCommitIdentifier): Option[Snapshot] = {
    val maxRetries = table.options.commitMaxRetries
    var planned: Option[Set[FileIdentifier]] = None
    var attempt = 0
    while (true) {
      val snapshots = table.snapshotManager
      val latest = snapshots.latest()
      val store = table.newManifestStore()
      val base = latest.map(store.dataManifests).getOrElse(Nil)
      val replaced = replacing(store, base)
      val ids = replaced.map(_.identifier).toSet
      planned.foreach { first =>
        val gone = first -- ids
        if (gone.nonEmpty) throw deletionConflict(gone)
      }
      planned = Some(ids)
      val deletes = replaced.map(_.asDelete)
      val written = new AttemptFiles(store)
      val newBase = store.mergeBase(base)
      val reused = base.map(_.fileName).toSet
      written.track(newBase.filterNot(m => reused(m.fileName)))
      val (baseList, baseSize) = written.list(newBase)
      val delta = written.track(store.writeManifests(deletes ++ added))
      val (deltaList, deltaSize) = written.list(delta)
      val deltaRecords = added.map(_.file.rowCount).sum - replaced.map(_.file.rowCount).sum
      val changelogList = if (changelog.isEmpty) None else Some(written.list(written.track(store.writeManifests(changelog))))
      val snapshot = Snapshot(
        id = latest.map(_.id + 1).getOrElse(1L),
        schemaId = table.schemaManager.listIds().lastOption.getOrElse(table.schema.id),
        baseManifestList = baseList, baseManifestListSize = Some(baseSize),
        deltaManifestList = deltaList, deltaManifestListSize = Some(deltaSize),
        changelogManifestList = changelogList.map(_._1), changelogManifestListSize = changelogList.map(_._2),
        indexManifest =
          if (index.isEmpty && indexReset.isEmpty) latest.flatMap(_.indexManifest)
          else Some(indexed(store, latest, index, indexReset)).filter(_.nonEmpty).map(written.index),
        commitUser = commitUser,
        commitIdentifier = identifier,
        commitKind = kind,
        timeMillis = System.currentTimeMillis(),
        totalRecordCount = latest.map(_.totalRecordCount).getOrElse(0L) + deltaRecords,
        deltaRecordCount = deltaRecords,
        changelogRecordCount = if (changelog.isEmpty) None else Some(changelog.map(_.file.rowCount).sum),
        watermark = latest.flatMap(_.watermark),
        statistics = None,
        properties = Map.empty,
        nextRowId = Some(latest.flatMap(_.nextRowId).getOrElse(0L)))
      if (table.hooks.locked(snapshots.publish(snapshot, statistics(deletes ++ added)))) {
        def partitions(entries: Seq[ManifestEntry]) = entries.map(_.partition.toSeq).toSet
        table.hooks.committed(table, snapshot, partitions(added), partitions(replaced))
        IcebergCommit.afterCommit(table, snapshot, deletes ++ added,
          vectorsChanged = index.exists(_.indexType == IndexManifestAvro.DeletionVectorsIndex))
        val endOfInput = identifier == SnapshotJson.BatchCommitIdentifier
        // As Paimon's Spark writes: a batch write marks the partitions it wrote done.
        if (endOfInput && kind != CommitKind.Compact && added.nonEmpty && table.options.endInputToDone &&
            table.schema.partitionKeys.nonEmpty) {
          PartitionMarkDone.mark(table, added.map(e => table.partitionValues(e.partition)))
        }
        CommitMaintenance.run(table, snapshot, endOfInput)
        return Some(snapshot)
      }
      written.discard()
      attempt += 1
      if (attempt > maxRetries) {
        throw new CommitConflictException(table.name, s"Commit to table ${table.location} lost the race for a new snapshot " +
          s"$attempt times (commit.max-retries=$maxRetries); nothing was committed")
      }
      Thread.sleep(math.min(1000L, 10L << math.min(attempt, 6)) + scala.util.Random.nextInt(50))
    }
    None
  }

  /** What `entries` (this commit's added and deleted files) change in each partition, as Paimon's `PartitionEntry`s. */
  private def statistics(entries: Seq[ManifestEntry]): Seq[PartitionStatistics] =
    entries.groupBy(_.partition.toSeq).toSeq.map { case (partition, files) =>
      def signed(e: ManifestEntry, n: Long) = if (e.kind == FileKind.Delete) -n else n
      PartitionStatistics(table.schema.partitionKeys.zip(table.partitionValues(partition.toArray)),
        files.map(e => signed(e, e.file.rowCount)).sum, files.map(e => signed(e, e.file.fileSize)).sum,
        files.map(e => signed(e, 1L)).sum, files.map(_.file.creationTimeMillis.getOrElse(0L)).max,
        files.last.totalBuckets)
    }

  /** Manifest files one attempt wrote: removed again when the attempt loses, as nobody references them. */
  private final class AttemptFiles(store: ManifestStore) {
    private val names = scala.collection.mutable.ArrayBuffer.empty[String]
    def track(metas: Seq[ManifestFileMeta]): Seq[ManifestFileMeta] = { names ++= metas.map(_.fileName); metas }
    def list(metas: Seq[ManifestFileMeta]): (String, Long) = {
      val (name, size) = store.writeList(metas)
      names += name
      (name, size)
    }
    def index(entries: Seq[IndexFileEntry]): String = {
      val name = store.writeIndexManifest(entries)
      names += name
      name
    }
    def discard(): Unit = names.foreach(n => table.io.delete(table.paths.manifestFile(n), recursive = false))
  }
}

object TableCommit {
  /**
   * Deletes what a compaction that will not be committed wrote: its new data, changelog and index
   * files. Files it only moved to another level stay: they are still live at their old one.
   */
  def discardCompaction(table: FileStoreTable, compacted: Seq[ManifestEntry], added: Seq[ManifestEntry],
      changelog: Seq[ManifestEntry], index: Seq[IndexChange]): Unit = {
    val moved = compacted.map(_.file.fileName).toSet
    (added.filterNot(a => moved(a.file.fileName)) ++ changelog)
      .foreach(a => table.io.delete(table.dataFilePath(a.partition, a.bucket, a.file), recursive = false))
    index.flatMap(_.entries).foreach(e => table.io.delete(table.paths.indexFile(e.fileName), recursive = false))
  }
}
