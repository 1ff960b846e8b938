package paimonspark.table.history

import java.io.FileNotFoundException

import scala.collection.mutable

import org.apache.hadoop.fs.Path

import paimonspark.format.metadata.{FileKind, ManifestEntry, ManifestFileMeta, Snapshot}
import paimonspark.table.FileStoreTable

/**
 * The files snapshots reference, as paths: what expiry, tag deletion, rollback and orphan cleanup
 * weigh before deleting anything. Each manifest is read once per instance. A metadata file that is
 * already gone (an expiry that died half way) counts as empty, so the work can be run again.
 */
final class SnapshotFiles(table: FileStoreTable) {
  private val store = table.newManifestStore()
  private val paths = table.paths
  private val lists = mutable.Map.empty[String, Seq[ManifestFileMeta]]
  private val manifests = mutable.Map.empty[String, Seq[ManifestEntry]]

  private def orEmpty[T](read: => Seq[T]): Seq[T] =
    try read
    catch { case _: FileNotFoundException => Nil }

  def list(name: String): Seq[ManifestFileMeta] = lists.getOrElseUpdate(name, orEmpty(store.readList(name)))
  def manifest(name: String): Seq[ManifestEntry] = manifests.getOrElseUpdate(name, orEmpty(store.readManifest(name)))

  private def listNames(s: Snapshot): Seq[String] =
    Seq(s.baseManifestList, s.deltaManifestList) ++ s.changelogManifestList

  /**
   * Manifest lists, manifests, the index manifest and the index files it lists, and the statistics
   * file; without the data lists (base, delta) or the changelog list and their manifests when told.
   */
  def metadata(s: Snapshot, dataLists: Boolean = true, changelogList: Boolean = true): Set[Path] = {
    val lists = (if (dataLists) Seq(s.baseManifestList, s.deltaManifestList) else Nil) ++
      s.changelogManifestList.filter(_ => changelogList)
    val names = lists.flatMap(l => l +: list(l).map(_.fileName))
    val index = s.indexManifest.toSeq.flatMap { name =>
      paths.manifestFile(name) +: orEmpty(store.indexFiles(Some(s))).map(e => paths.indexFile(e.fileName))
    }
    (names.map(paths.manifestFile) ++ index ++ s.statistics.map(n => new Path(paths.statisticsDir, n))).toSet
  }

  /** A snapshot's manifest lists and index manifest: the metadata that names the rest of it. */
  def roots(s: Snapshot): Set[Path] = (listNames(s) ++ s.indexManifest).map(paths.manifestFile).toSet

  /** The data files live in a snapshot, with their extra files. */
  def data(s: Snapshot): Set[Path] = {
    val live = mutable.LinkedHashMap.empty[Any, ManifestEntry]
    (list(s.baseManifestList) ++ list(s.deltaManifestList)).foreach(m => manifest(m.fileName).foreach { e =>
      if (e.kind == FileKind.Add) live.put(e.identifier, e) else live.remove(e.identifier)
    })
    live.values.flatMap(filesOf).toSet
  }

  /**
   * Which of `candidates` (data files and their extra files) some of `snapshots` holds live. Each
   * manifest is read once, and only the entries of candidate files are merged.
   */
  def liveAmong(snapshots: Iterable[Snapshot], candidates: Set[Path]): Set[Path] = {
    if (candidates.isEmpty) return Set.empty
    val relevant = mutable.Map.empty[String, Seq[ManifestEntry]]
    def entries(name: String) = relevant.getOrElseUpdate(name, manifest(name).filter(e => filesOf(e).exists(candidates)))
    snapshots.iterator.flatMap { s =>
      val live = mutable.LinkedHashMap.empty[Any, ManifestEntry]
      (list(s.baseManifestList) ++ list(s.deltaManifestList)).foreach(m => entries(m.fileName).foreach { e =>
        if (e.kind == FileKind.Add) live.put(e.identifier, e) else live.remove(e.identifier)
      })
      live.values.flatMap(filesOf)
    }.filter(candidates).toSet
  }

  /** Entries of the manifests a snapshot's delta list names: what that one commit added and removed. */
  def delta(s: Snapshot): Seq[ManifestEntry] = list(s.deltaManifestList).flatMap(m => manifest(m.fileName))

  /**
   * The files a commit removed for good, with the entries that removed them: a compaction that
   * moves a file up a level removes and adds the same file in one commit.
   */
  def removedBy(s: Snapshot): Seq[(ManifestEntry, Path)] = {
    val (removed, added) = delta(s).partition(_.kind == FileKind.Delete)
    val moved = added.flatMap(filesOf).toSet
    removed.flatMap(e => filesOf(e).filterNot(moved).map(e -> _))
  }

  /** Changelog files a snapshot's changelog manifests list. */
  def changelog(s: Snapshot): Seq[Path] =
    s.changelogManifestList.toSeq.flatMap(list).flatMap(m => manifest(m.fileName)).flatMap(filesOf)

  /** Every data file a manifest of the snapshot mentions, added or removed: what cleanup must never remove. */
  def mentioned(s: Snapshot): Set[Path] =
    listNames(s).flatMap(list).flatMap(m => manifest(m.fileName)).flatMap(filesOf).toSet

  def filesOf(e: ManifestEntry): Seq[Path] = {
    val file = table.dataFilePath(e.partition, e.bucket, e.file)
    file +: e.file.extraFiles.map(x => new Path(file.getParent, x))
  }
}
