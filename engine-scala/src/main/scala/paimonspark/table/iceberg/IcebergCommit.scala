package paimonspark.table.iceberg

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import scala.collection.mutable

import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.hadoop.fs.Path

import paimonspark.StorageException
import paimonspark.format.iceberg.{IcebergDataFile, IcebergEntry, IcebergManifestMeta, IcebergManifests,
  IcebergMetadata, IcebergPaths, IcebergSnapshot, IcebergTypes}
import paimonspark.format.metadata.{DataFileMeta, FileKind, Json, ManifestEntry, Snapshot, TableSchema}
import paimonspark.format.row.BinaryRow
import paimonspark.lsm.KeyRanges
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.scan.SplitPacking

/**
 * The Iceberg metadata of a table with `metadata.iceberg.storage`, brought to each snapshot it commits, as
 * Paimon's `IcebergCommitCallback` does: snapshot N gives `v<N>.metadata.json` (Iceberg snapshot and
 * sequence number N, parent N-1) and `version-hint.text`. From `v<N-1>` it goes incrementally (the
 * snapshot's added files in a new manifest; manifests holding a deleted file rewritten, that file marked
 * deleted); without it (the first snapshot, a gap another writer left) afresh from the snapshot's live
 * files, as one snapshot. A version that exists is left as it is, so a retry changes nothing.
 */
final class IcebergCommit(table: FileStoreTable) {
  private val io = table.io
  private val options = table.options
  private val paths = IcebergCommit.paths(table)
  private val partitionFields = table.schema.partitionKeys.map(table.schema.field)
  private val manifests = new IcebergManifests(partitionFields, options.icebergManifestCompression,
    options.icebergLegacyManifests)
  private val schemas = mutable.Map.empty[Long, TableSchema]
  private def schemaOf(id: Long): TableSchema = schemas.getOrElseUpdate(id, table.schemaWithId(id))
  private lazy val latestSchemaId = table.schemaManager.listIds().lastOption.getOrElse(table.schema.id)

  def commit(snapshot: Snapshot, delta: Seq[ManifestEntry]): Unit = {
    val id = snapshot.id
    // A table created again under the same name must not inherit the old table's metadata.
    if (id == 1) io.delete(paths.metadataDir, recursive = true)
    if (io.exists(paths.metadataFile(id))) return
    val base = paths.metadataFile(id - 1)
    if (io.exists(base)) withBase(IcebergMetadata.parse(io.readUtf8(base)), id, delta) else afresh(snapshot)
  }

  /**
   * After a rollback to `target`: versions past it would be taken for the snapshots that get their ids
   * next, so they go, and the metadata starts afresh at `target` unless its version is still there.
   */
  def rolledBack(target: Snapshot): Unit = {
    io.list(paths.metadataDir).map(_.getPath).filter(p => paths.versionOf(p.getName).exists(_ > target.id))
      .foreach(io.delete(_, recursive = false))
    if (io.exists(paths.metadataFile(target.id))) io.overwrite(paths.versionHint, target.id.toString.getBytes(UTF_8))
    else afresh(target)
  }

  private def afresh(snapshot: Snapshot): Unit = {
    val id = snapshot.id
    val store = table.newManifestStore()
    val live = store.liveFiles(store.dataManifests(snapshot))
    val readable = if (!table.isPrimaryKeyTable) live
      else live.groupBy(e => (e.partitionKey, e.bucket)).values.toSeq.flatMap(readAsIs)
    val entries = readable.map(e => IcebergEntry(IcebergEntry.Added, id, id, id, dataFile(e)))
    val metas = if (entries.isEmpty) Nil else Seq(writeManifest(entries, id))
    val fields = partitionSpec()
    val metadata = IcebergMetadata(2, UUID.randomUUID().toString, table.location.toString, id,
      System.currentTimeMillis(), schemaOf(latestSchemaId).highestFieldId,
      table.schemaManager.listIds().filter(_ <= latestSchemaId).map(i => IcebergTypes.schema(schemaOf(i))),
      latestSchemaId.toInt, fields, fields.size + 999,
      Seq(IcebergSnapshot(id, None, System.currentTimeMillis(), "append", writeList(metas), latestSchemaId.toInt)), id, Map.empty)
    publish(metadata, id)
    expireAllBefore(id)
  }

  private def withBase(base: IcebergMetadata, id: Long, delta: Seq[ManifestEntry]): Unit = {
    // The delta in Paimon's order: a file deleted and added again (a level change) counts once, as added.
    val added = mutable.LinkedHashMap.empty[String, ManifestEntry]
    val removed = mutable.LinkedHashSet.empty[String]
    delta.foreach { e =>
      val path = table.dataFilePath(e.partition, e.bucket, e.file).toString
      if (e.kind == FileKind.Add) { if (visible(e)) { removed -= path; added(path) = e } }
      else { added -= path; removed += path }
    }
    val baseMetas = manifests.readManifestList(io.readBytes(new Path(base.currentSnapshot.manifestList)))
    val (kept, operation) = if (removed.isEmpty) (baseMetas, "append") else {
      var overwrite = false
      val metas = baseMetas.flatMap { meta =>
        val entries = manifests.readManifest(io.readBytes(new Path(meta.path)))
        val live = entries.filter(_.live)
        live.foreach(e => added -= e.file.path)
        if (!live.exists(e => removed(e.file.path))) Seq(meta)
        else {
          overwrite = true
          Seq(writeManifest(live.map(e => e.copy(status = if (removed(e.file.path)) IcebergEntry.Deleted
            else IcebergEntry.Existing)), id))
        }
      }
      (metas, if (overwrite) "overwrite" else "append")
    }
    val fresh = if (added.isEmpty) Nil
      else Seq(writeManifest(added.values.map(e => IcebergEntry(IcebergEntry.Added, id, id, id, dataFile(e))).toSeq, id))
    val list = writeList(compacted(kept ++ fresh, id))
    val schemaList = if (base.currentSchemaId == latestSchemaId) base.schemas
      else base.schemas ++ table.schemaManager.listIds().filter(i => i > base.currentSchemaId && i <= latestSchemaId)
        .map(i => IcebergTypes.schema(schemaOf(i)))
    val now = System.currentTimeMillis()
    val all = base.snapshots :+ IcebergSnapshot(id, Some(id - 1), now, operation, list, latestSchemaId.toInt)
    // Paimon's retention decides which Iceberg snapshots stay; the newest always does.
    val expiring = all.init.takeWhile(s => expired(s, id, now))
    val snapshots = all.drop(expiring.size)
    val listed = snapshots.map(_.id).toSet
    val refs = table.tagManager.list().filter { case (_, tag) => listed(tag.snapshot.id) }
      .groupBy(_._2.snapshot.id).map { case (sid, tags) => tags.map(_._1).min -> sid }
    publish(base.copy(lastSequenceNumber = id, lastUpdatedMs = now, lastColumnId = schemaOf(latestSchemaId).highestFieldId,
      schemas = schemaList, currentSchemaId = latestSchemaId.toInt, snapshots = snapshots, currentSnapshotId = id,
      refs = refs), id)
    deleteOldVersions(id)
    expiring.zip(expiring.drop(1) :+ snapshots.head).foreach { case (gone, next) => expireList(gone.manifestList, next.manifestList) }
  }

  /** Whether a file a commit adds is one Iceberg readers get: a primary-key table's only on its top level. */
  private def visible(e: ManifestEntry): Boolean = !table.isPrimaryKeyTable || e.file.level == options.numLevels - 1

  /**
   * The files of one primary-key bucket a reader takes as they are, by Paimon's batch split rule
   * (`MergeTreeSplitGenerator.splitForBatch`): all of them when none is on level 0 and they share one level;
   * else, of the key sections packed into splits of `source.split.target-size`, each split that is one file.
   * A file with deleted rows is never taken as it is.
   */
  private def readAsIs(bucket: Seq[ManifestEntry]): Seq[ManifestEntry] = {
    def whole(e: ManifestEntry) = e.file.deleteRowCount.forall(_ == 0L)
    if (bucket.forall(e => e.file.level != 0 && whole(e)) && bucket.map(_.file.level).distinct.size == 1) bucket
    else {
      val byFile = bucket.map(e => e.file.fileName -> e).toMap
      val sections = keyRanges.sections(bucket.map(_.file))
      val cost = options.splitOpenFileCost
      val target = options.splitTargetSizeSet.getOrElse(SplitPacking.DefaultTargetSize)
      val packed = SplitPacking(target, cost, 1).pack(sections, (s: Seq[DataFileMeta]) =>
        s.map(f => math.max(f.fileSize, cost)).sum, target)
      packed.map(_.flatten).filter(split => split.size == 1 && whole(byFile(split.head.fileName)))
        .map(split => byFile(split.head.fileName))
    }
  }

  private lazy val keyRanges = new KeyRanges(KeyLayout.of(table.location.toString, table.schema).trimmedKeys
    .map(table.schema.field(_).dataType))

  private def expired(s: IcebergSnapshot, current: Long, now: Long): Boolean =
    if (s.id > current - options.snapshotRetainMin) false
    else if (s.id <= current - options.snapshotRetainMax) true
    else s.timestampMs < now - options.snapshotTimeRetained.toMillis

  /** Merges small manifests once there are enough of them (`metadata.iceberg.compaction.*`), as Paimon does. */
  private def compacted(metas: Seq[IcebergManifestMeta], id: Long): Seq[IcebergManifestMeta] = {
    val target = options.manifestTargetFileSize
    val (small, large) = metas.partition(_.length < target * 2 / 3)
    val size = small.map(_.length).sum
    if (small.size < options.icebergCompactMinFiles ||
      (small.size < options.icebergCompactMaxFiles && size < target)) metas
    else {
      val entries = small.flatMap { meta =>
        val read = manifests.readManifest(io.readBytes(new Path(meta.path))).flatMap { e =>
          if (e.fileSequenceNumber == id || e.status == IcebergEntry.Existing) Some(e)
          else if (e.status == IcebergEntry.Added) Some(e.copy(status = IcebergEntry.Existing))
          else None
        }
        // Written by this commit and listed nowhere else.
        if (meta.sequenceNumber == id) io.delete(new Path(meta.path), recursive = false)
        read
      }
      large :+ writeManifest(entries, id)
    }
  }

  private def dataFile(e: ManifestEntry): IcebergDataFile = {
    val file = e.file
    val schema = schemaOf(file.schemaId)
    val statsFields = file.valueStatsCols.map(_.map(schema.field)).getOrElse(schema.fields)
    val types = statsFields.map(_.dataType.withNullable(true))
    val stats = file.valueStats
    // Rows of another arity (a writer that kept no bounds) give counts only.
    val arity = java.nio.ByteBuffer.wrap(stats.minValues, 0, 4).getInt
    val (mins, maxs) = if (arity != types.size) (None, None)
      else (Some(BinaryRow.deserialize(types, stats.minValues)), Some(BinaryRow.deserialize(types, stats.maxValues)))
    val counts = stats.nullCounts.getOrElse(Nil)
    val bounds = statsFields.indices.flatMap { i =>
      val f = statsFields(i)
      for (lo <- mins; hi <- maxs if !lo.isNullAt(i) && !hi.isNullAt(i) && IcebergTypes.unsupported(f.dataType).isEmpty &&
        f.dataType.isInstanceOf[paimonspark.format.AtomicType])
        yield f.id -> (IcebergTypes.bound(f.dataType, lo.get(i, null)), IcebergTypes.bound(f.dataType, hi.get(i, null)))
    }
    val partition = BinaryRow.deserialize(table.schema.partitionRowType.map(_.withNullable(true)), e.partition)
    IcebergDataFile(table.dataFilePath(e.partition, e.bucket, file).toString, IcebergTypes.fileFormat(file.fileName),
      partitionFields.indices.map(i => partition.get(i, null)), file.rowCount, file.fileSize,
      statsFields.indices.flatMap(i => counts.lift(i).flatten.map(statsFields(i).id -> _)).toMap,
      bounds.map { case (fid, (lo, _)) => fid -> lo }.toMap, bounds.map { case (fid, (_, hi)) => fid -> hi }.toMap)
  }

  private def partitionSpec(): Seq[ObjectNode] = partitionFields.zipWithIndex.map { case (f, i) =>
    val node = Json.obj()
    node.put("name", f.name)
    node.put("transform", "identity")
    node.put("source-id", f.id)
    node.put("field-id", 1000 + i)
    node
  }

  private def writeManifest(entries: Seq[IcebergEntry], id: Long): IcebergManifestMeta = {
    val path = paths.newManifest()
    val (bytes, meta) = manifests.manifest(entries, id, id)
    io.writeBytes(path, bytes)
    meta(path.toString)
  }

  private def writeList(metas: Seq[IcebergManifestMeta]): String = {
    val path = paths.newManifestList()
    io.writeBytes(path, manifests.manifestList(metas))
    path.toString
  }

  private def publish(metadata: IcebergMetadata, id: Long): Unit = {
    io.publish(paths.metadataFile(id), metadata.toJson.getBytes(UTF_8))
    io.overwrite(paths.versionHint, id.toString.getBytes(UTF_8))
  }

  /** Old `v<N>.metadata.json` beyond `metadata.iceberg.previous-versions-max`, when Paimon would delete them. */
  private def deleteOldVersions(id: Long): Unit = if (options.icebergDeleteAfterCommit) {
    val keepFrom = id - options.icebergPreviousVersionsMax
    versionsBefore(keepFrom).foreach(p => io.delete(p, recursive = false))
  }

  private def versionsBefore(id: Long): Seq[Path] =
    io.list(paths.metadataDir).map(_.getPath).filter(p => paths.versionOf(p.getName).exists(_ < id))

  /** A manifest list no snapshot lists any more, and the manifests of it the next one does not use. */
  private def expireList(gone: String, next: String): Unit = {
    val inUse = manifests.readManifestList(io.readBytes(new Path(next))).map(_.path).toSet
    manifests.readManifestList(io.readBytes(new Path(gone))).map(_.path).filterNot(inUse)
      .foreach(p => io.delete(new Path(p), recursive = false))
    io.delete(new Path(gone), recursive = false)
  }

  /** After a fresh start: every older version's manifests and lists, then the versions themselves. */
  private def expireAllBefore(id: Long): Unit = {
    val lists = mutable.Set.empty[String]
    val manifestPaths = mutable.Set.empty[String]
    versionsBefore(id).foreach { version =>
      IcebergMetadata.parse(io.readUtf8(version)).snapshots.map(_.manifestList).filter(lists.add).foreach { list =>
        val listPath = new Path(list)
        if (io.exists(listPath)) {
          manifests.readManifestList(io.readBytes(listPath)).map(_.path).filter(manifestPaths.add)
            .foreach(p => io.delete(new Path(p), recursive = false))
          io.delete(listPath, recursive = false)
        }
      }
    }
    deleteOldVersions(id)
  }
}

object IcebergCommit {
  def paths(table: FileStoreTable): IcebergPaths = IcebergPaths.of(table.name, table.location,
    table.options.icebergStorage, table.options.icebergStorageLocation)

  /** After `snapshot` was published with `delta` (its added and deleted files), for a table that keeps Iceberg metadata. */
  def afterCommit(table: FileStoreTable, snapshot: Snapshot, delta: Seq[ManifestEntry]): Unit =
    if (table.options.icebergStorage != "disabled") {
      try new IcebergCommit(table).commit(snapshot, delta) catch {
        case e: Exception => throw new StorageException(paths(table).metadataDir.toString, s"table ${table.name}: " +
          s"snapshot ${snapshot.id} was committed, but its Iceberg metadata could not be written (${e.getMessage}); " +
          "Iceberg readers see the version before it until the next commit writes the metadata afresh", e)
      }
    }

  /** After the table was rolled back to `target`. */
  def afterRollback(table: FileStoreTable, target: Snapshot): Unit =
    if (table.options.icebergStorage != "disabled") new IcebergCommit(table).rolledBack(target)
}
