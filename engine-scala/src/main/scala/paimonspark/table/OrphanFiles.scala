package paimonspark.table

import scala.collection.mutable

import org.apache.hadoop.fs.{FileStatus, Path}

import paimonspark.format.TablePaths

/** A file under a table that nothing references. */
final case class OrphanFile(path: Path, size: Long)

/**
 * Finds files under a table that no snapshot, tag or changelog of any branch references, older than
 * a given time: data, changelog, manifest, index and statistics files left by killed writers and
 * failed commits, and temporary files of interrupted publishes. Metadata that names the history
 * itself (schemas, snapshots, tags, hints, consumers) is never a candidate.
 */
final class OrphanFiles(table: FileStoreTable) {
  private val io = table.io
  private val paths = table.paths.forBranch(TablePaths.MainBranch)
  private val MetadataDirs = Set("schema", "snapshot", "tag", "consumer", "changelog", "branch")

  def find(olderThanMillis: Long): Seq[OrphanFile] = {
    val used = referenced()
    val candidates = mutable.ArrayBuffer.empty[FileStatus]
    walk(paths.root, top = true, candidates)
    (TablePaths.MainBranch +: table.branchManager.list()).foreach { b =>
      val branch = paths.forBranch(b)
      Seq(branch.snapshotDir, branch.tagDir, branch.schemaDir).foreach(dir =>
        candidates ++= io.list(dir).filter(s => s.isFile && s.getPath.getName.startsWith(".")))
    }
    candidates.toSeq.filter(s => s.getModificationTime < olderThanMillis && !used(key(s.getPath)))
      .map(s => OrphanFile(s.getPath, s.getLen))
  }

  private def key(p: Path): String = p.toUri.getPath

  private def walk(dir: Path, top: Boolean, into: mutable.ArrayBuffer[FileStatus]): Unit =
    io.list(dir).foreach { s =>
      if (s.isDirectory) { if (!(top && MetadataDirs(s.getPath.getName))) walk(s.getPath, top = false, into) }
      else into += s
    }

  /** Every file some retained snapshot, tag or changelog of some branch names, by path. */
  private def referenced(): Set[String] = {
    val used = mutable.HashSet.empty[String]
    (TablePaths.MainBranch +: table.branchManager.list()).foreach { b =>
      val branch = table.branch(b)
      val files = new SnapshotFiles(branch)
      val snapshots = branch.snapshotManager
      val history = snapshots.listIds().flatMap(snapshots.readIfExists) ++ branch.tagManager.list().map(_._2.snapshot)
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
