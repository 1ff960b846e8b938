package paimonspark.table.iceberg

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import scala.collection.mutable

import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.hadoop.fs.Path

import paimonspark.StorageException
import paimonspark.format.iceberg.{IcebergEntry, IcebergManifestMeta, IcebergManifests, IcebergMetadata, IcebergPaths,
  IcebergSnapshot, IcebergTypes}
import paimonspark.format.metadata.{FileKind, Json, ManifestEntry, Snapshot, TableSchema}
import paimonspark.table.FileStoreTable

/**
 * The Iceberg metadata of a table with `metadata.iceberg.storage`, brought to each snapshot it commits, as
 * Paimon's `IcebergCommitCallback` does: snapshot N gives `v<N>.metadata.json` (Iceberg snapshot and
 * sequence number N, parent N-1) and `version-hint.text`. From `v<N-1>` it goes incrementally (the
 * snapshot's added files in a new manifest; manifests holding a deleted file rewritten, that file marked
 * deleted; the deletion vectors written again whenever the commit changed them); without it (the first
 * snapshot, a gap another writer left, another format version) afresh from the snapshot's live files, as
 * one snapshot. A version that exists is left as it is, so a retry changes nothing.
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
  private val files = new IcebergFiles(table, schemaOf)
  private val formatVersion = options.icebergFormatVersion

  /** After `snapshot`, which added and deleted the files of `delta` and changed deletion vectors if `vectorsChanged`. */
  def commit(snapshot: Snapshot, delta: Seq[ManifestEntry], vectorsChanged: Boolean): Unit = {
    val id = snapshot.id
    // A table created again under the same name must not inherit the old table's metadata.
    if (id == 1) io.delete(paths.metadataDir, recursive = true)
    if (io.exists(paths.metadataFile(id))) return
    val basePath = paths.metadataFile(id - 1)
    val base = if (io.exists(basePath)) Some(IcebergMetadata.parse(io.readUtf8(basePath))) else None
    base.filter(_.formatVersion > formatVersion).foreach(b => throw new IllegalStateException(s"the Iceberg metadata " +
      s"$basePath has format version ${b.formatVersion}, above 'metadata.iceberg.format-version' = $formatVersion"))
    base.filter(_.formatVersion == formatVersion) match {
      case Some(b) => withBase(b, snapshot, delta, vectorsChanged)
      case None => afresh(snapshot)
    }
  }

  /**
   * After a rollback to `target`: versions past it would be taken for the snapshots that get their ids
   * next, so they go, and the metadata starts afresh at `target` unless its version is still there.
   */
  def rolledBack(target: Snapshot): Unit = {
    io.list(paths.metadataDir).map(_.getPath).filter(p => paths.versionOf(p.getName).exists(_ > target.id))
      .foreach(io.delete(_, recursive = false))
    if (io.exists(paths.metadataFile(target.id))) {
      io.overwrite(paths.versionHint, target.id.toString.getBytes(UTF_8))
      register(paths.metadataFile(target.id), None)
    } else afresh(target)
  }

  private def afresh(snapshot: Snapshot): Unit = {
    val id = snapshot.id
    val (data, deletes) = files.afresh(snapshot, id)
    val metas = Seq(data, deletes).filter(_.nonEmpty).map(writeManifest(_, id))
    val fields = partitionSpec()
    val metadata = IcebergMetadata(formatVersion, UUID.randomUUID().toString, table.location.toString, id,
      System.currentTimeMillis(), schemaOf(latestSchemaId).highestFieldId,
      table.schemaManager.listIds().filter(_ <= latestSchemaId).map(i => IcebergTypes.schema(schemaOf(i))),
      latestSchemaId.toInt, fields, fields.size + 999,
      Seq(IcebergSnapshot(id, None, System.currentTimeMillis(), "append", writeList(metas), latestSchemaId.toInt)), id, Map.empty)
    publish(metadata, id, None)
    expireAllBefore(id)
  }

  private def withBase(base: IcebergMetadata, snapshot: Snapshot, delta: Seq[ManifestEntry], vectorsChanged: Boolean): Unit = {
    val id = snapshot.id
    // The delta in Paimon's order: a file deleted and added again (a level change) counts once, as added.
    val added = mutable.LinkedHashMap.empty[String, ManifestEntry]
    val removed = mutable.LinkedHashSet.empty[String]
    delta.foreach { e =>
      val path = table.dataFilePath(e.partition, e.bucket, e.file).toString
      if (e.kind == FileKind.Add) { if (files.visible(e)) { removed -= path; added(path) = e } }
      else { added -= path; removed += path }
    }
    val (baseMetas, baseDeletes) = manifests.readManifestList(io.readBytes(new Path(base.currentSnapshot.manifestList)))
      .partition(_.content == 0)
    val (kept, operation) = if (removed.isEmpty) (baseMetas, "append") else {
      var overwrite = false
      // Only manifests whose partition summaries may hold a file of a partition the commit touched are read.
      val touched = delta.filter(e => e.kind != FileKind.Add || files.visible(e)).map(e => ByteBuffer.wrap(e.partition))
        .distinct.map(p => files.partitionOf(p.array()))
      val metas = baseMetas.flatMap { meta =>
        if (!manifests.mayHold(meta, touched)) Seq(meta)
        else {
          val live = manifests.readManifest(io.readBytes(new Path(meta.path))).filter(_.live)
          live.foreach(e => added -= e.file.path)
          if (!live.exists(e => removed(e.file.path))) Seq(meta)
          else {
            overwrite = true
            Seq(writeManifest(live.map(e => e.copy(status = if (removed(e.file.path)) IcebergEntry.Deleted
              else IcebergEntry.Existing)), id))
          }
        }
      }
      (metas, if (overwrite) "overwrite" else "append")
    }
    val fresh = if (added.isEmpty) Nil
      else Seq(writeManifest(added.values.map(e => IcebergEntry(IcebergEntry.Added, id, id, id, files.dataFile(e))).toSeq, id))
    // Paimon writes every vector again when a commit changed any, and keeps the last ones otherwise.
    val deletes = if (!files.deletionVectors) Nil else if (!vectorsChanged) baseDeletes
      else Some(files.allDeletionVectors(snapshot, id)).filter(_.nonEmpty).map(writeManifest(_, id)).toSeq
    val list = writeList(compacted(kept ++ fresh, id) ++ deletes)
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
      refs = refs), id, Some(paths.metadataFile(id - 1)))
    deleteOldVersions(id)
    expiring.zip(expiring.drop(1) :+ snapshots.head).foreach { case (gone, next) => expireList(gone.manifestList, next.manifestList) }
  }

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

  /** Publishes version `id`, and registers it where `hive-catalog` storage keeps it, after `base` if it went on from one. */
  private def publish(metadata: IcebergMetadata, id: Long, base: Option[Path]): Unit = {
    io.publish(paths.metadataFile(id), metadata.toJson.getBytes(UTF_8))
    io.overwrite(paths.versionHint, id.toString.getBytes(UTF_8))
    register(paths.metadataFile(id), base)
  }

  private def register(metadata: Path, base: Option[Path]): Unit =
    if (options.icebergStorage == "hive-catalog") table.hooks.icebergRegistry.foreach(_.register(table, metadata, base))

  /**
   * Old `v<N>.metadata.json` beyond `metadata.iceberg.previous-versions-max`, when Paimon would delete them: the
   * version that just fell out of those kept, and those before it that a commit which died left, down to the
   * first one missing (the older ones went with earlier commits). Paimon lists the directory instead, which
   * grows by a manifest list and manifests every commit: on local disk that listing took half our commit's time.
   */
  private def deleteOldVersions(id: Long): Unit = if (options.icebergDeleteAfterCommit) {
    var version = id - options.icebergPreviousVersionsMax - 1
    while (version >= 1 && io.delete(paths.metadataFile(version), recursive = false)) version -= 1
  }

  /** After a fresh start, every version before `id`, however old. */
  private def deleteVersionsBefore(id: Long): Unit = if (options.icebergDeleteAfterCommit) {
    versionsBefore(id - options.icebergPreviousVersionsMax).foreach(io.delete(_, recursive = false))
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
    deleteVersionsBefore(id)
  }
}

object IcebergCommit {
  def paths(table: FileStoreTable): IcebergPaths = IcebergPaths.of(table.name, table.location,
    table.options.icebergStorage, table.options.icebergStorageLocation)

  /**
   * After `snapshot` was published with `delta` (its added and deleted files), and changed deletion vectors if
   * `vectorsChanged`, for a table that keeps Iceberg metadata.
   */
  def afterCommit(table: FileStoreTable, snapshot: Snapshot, delta: Seq[ManifestEntry], vectorsChanged: Boolean): Unit =
    if (table.options.icebergStorage != "disabled") {
      try new IcebergCommit(table).commit(snapshot, delta, vectorsChanged) catch {
        case e: Exception => throw new StorageException(paths(table).metadataDir.toString, s"table ${table.name}: " +
          s"snapshot ${snapshot.id} was committed, but its Iceberg metadata could not be written (${e.getMessage}); " +
          "Iceberg readers see the version before it until the next commit writes the metadata afresh", e)
      }
    }

  /** After the table was rolled back to `target`. */
  def afterRollback(table: FileStoreTable, target: Snapshot): Unit =
    if (table.options.icebergStorage != "disabled") new IcebergCommit(table).rolledBack(target)
}
