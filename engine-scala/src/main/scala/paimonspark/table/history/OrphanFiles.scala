package paimonspark.table.history

import scala.collection.mutable

import org.apache.hadoop.fs.{FileStatus, Path}

import paimonspark.format.TablePaths
import paimonspark.fs.PublishedFile
import paimonspark.table.FileStoreTable

/** A file under a table that nothing references. */
final case class OrphanFile(path: Path, size: Long)

/**
 * Finds files under a table that no snapshot, tag or changelog of any branch references, older than
 * a given time: data, changelog, manifest, index and statistics files left by killed writers and
 * failed commits, temporary files of interrupted publishes, and empty published files (a snapshot
 * whose writer stopped between its create and its close, on Azure). As in Paimon, only the files
 * directly in `manifest/`, `index/`, `statistics/` and the bucket directories (under one `k=v`
 * directory per partition key) are candidates, so files Paimon does not own (a partition's
 * `_SUCCESS` marker, Iceberg metadata beside the table) are never touched. Metadata that names the
 * history itself (schemas, snapshots, tags, hints, consumers) is never a candidate either.
 */
final class OrphanFiles(table: FileStoreTable) {
  private val io = table.io
  private val paths = table.paths.forBranch(TablePaths.MainBranch)

  def find(olderThanMillis: Long): Seq[OrphanFile] = {
    val used = referenced()
    val candidates = mutable.ArrayBuffer.empty[FileStatus]
    (Seq(paths.manifestDir, paths.indexDir, paths.statisticsDir) ++ bucketDirs(paths.root, table.schema.partitionKeys.size))
      .foreach(dir => candidates ++= io.list(dir).filter(_.isFile))
    (TablePaths.MainBranch +: table.branchManager.list()).foreach { b =>
      val branch = paths.forBranch(b)
      Seq(branch.snapshotDir, branch.tagDir, branch.schemaDir, branch.changelogDir).foreach(dir =>
        candidates ++= io.list(dir).filter(s => s.isFile && (s.getPath.getName.startsWith(".") || !PublishedFile.isComplete(s))))
    }
    candidates.toSeq.filter(s => s.getModificationTime < olderThanMillis && !used(key(s.getPath)))
      .map(s => OrphanFile(s.getPath, s.getLen))
  }

  private def key(p: Path): String = p.toUri.getPath

  /** The `bucket-*` directories below `levels` levels of `k=v` partition directories, as Paimon lists them. */
  private def bucketDirs(dir: Path, levels: Int): Seq[Path] = {
    val dirs = io.list(dir).filter(_.isDirectory).map(_.getPath)
    if (levels == 0) dirs.filter(_.getName.startsWith("bucket-"))
    else dirs.filter(_.getName.contains("=")).flatMap(bucketDirs(_, levels - 1))
  }

  /** Every file some retained snapshot, tag or changelog of some branch names, by path. */
  private def referenced(): Set[String] = {
    val used = mutable.HashSet.empty[String]
    (TablePaths.MainBranch +: table.branchManager.list()).foreach { b =>
      val branch = table.branch(b)
      val files = new SnapshotFiles(branch)
      val snapshots = branch.snapshotManager
      val changelogs = branch.changelogManager
      val history = snapshots.listIds().flatMap(snapshots.readIfExists) ++ branch.tagManager.list().map(_._2.snapshot) ++
        changelogs.listIds().flatMap(changelogs.readIfExists)
      history.foreach { s =>
        files.metadata(s).foreach(p => used += key(p))
        files.mentioned(s).foreach(p => used += key(p))
      }
    }
    used.toSet
  }
}

object OrphanFiles {
  /** Paimon's default for `older_than`: files younger than a day may belong to a running writer. */
  val DefaultAgeMillis: Long = 24L * 60 * 60 * 1000
}
