package paimonspark.table.compact

import scala.collection.mutable.ArrayBuffer

import paimonspark.format.metadata.DataFileMeta
import paimonspark.table.TableOptions

/**
 * Chooses which files of one partition of an append table (bucket-unaware) to rewrite, by the rules
 * of Paimon's append compaction coordinator:
 *  - only small files take part: those under `target-file-size` × `compaction.small-file-ratio`,
 *    so a file that compaction wrote at about the target size is not rewritten again;
 *  - small files are gathered into groups; a group is done once it has two or more files weighing
 *    at least two target files, where a file weighs its size plus `source.split.open-file-cost`;
 *  - the last, unfinished group is rewritten only once it has `compaction.min.file-num` files.
 * Paimon gathers small files smallest first; here they are taken in commit order, so that the rows
 * of a group keep their order in the files it is rewritten into.
 */
final case class AppendCompactPicker(targetFileSize: Long, smallFileSize: Long, openFileCost: Long, minFileNum: Int) {

  def isSmall(file: DataFileMeta): Boolean = file.fileSize < smallFileSize

  /** Groups of two or more small files, each to be rewritten by one task; `files` in commit order. */
  def pick(files: Seq[DataFileMeta]): Seq[Seq[DataFileMeta]] = {
    val groups = ArrayBuffer.empty[Seq[DataFileMeta]]
    val group = ArrayBuffer.empty[DataFileMeta]
    var weight = 0L
    files.filter(isSmall).foreach { file =>
      group += file
      weight += file.fileSize + openFileCost
      if (group.size > 1 && weight >= 2 * targetFileSize) {
        groups += group.toSeq
        group.clear()
        weight = 0L
      }
    }
    // A group of one would only be copied (Paimon refuses such a task), whatever min.file-num says.
    if (group.size >= math.max(2, minFileNum)) groups += group.toSeq
    groups.toSeq
  }

  /**
   * Every file, in groups of neighbours weighing about two target files (`compaction.force-rewrite-all-files`):
   * a group of one is rewritten too.
   */
  def all(files: Seq[DataFileMeta]): Seq[Seq[DataFileMeta]] = {
    val groups = ArrayBuffer.empty[Seq[DataFileMeta]]
    val group = ArrayBuffer.empty[DataFileMeta]
    var weight = 0L
    files.foreach { file =>
      group += file
      weight += file.fileSize + openFileCost
      if (weight >= 2 * targetFileSize) { groups += group.toSeq; group.clear(); weight = 0L }
    }
    if (group.nonEmpty) groups += group.toSeq
    groups.toSeq
  }

  /**
   * Groups of neighbouring files of one bucket of a bucketed append table (`files` in sequence
   * order), as Paimon's BucketedAppendCompactManager picks them: a window slides over the files,
   * dropping its oldest file while it weighs two target files or more, and becomes a group once it
   * holds `compaction.min.file-num` files (at least two). Only neighbours are merged, so the rows of
   * a group keep their place in the bucket's order; a file that is not `readable` ends every window.
   */
  def pickInOrder(files: Seq[DataFileMeta], readable: DataFileMeta => Boolean): Seq[Seq[DataFileMeta]] = {
    val groups = ArrayBuffer.empty[Seq[DataFileMeta]]
    val window = scala.collection.mutable.Queue.empty[DataFileMeta]
    var size = 0L
    files.foreach { file =>
      if (!readable(file)) {
        window.clear()
        size = 0L
      } else {
        window += file
        size += file.fileSize
        if (window.size >= math.max(2, minFileNum)) {
          groups += window.toSeq
          window.clear()
          size = 0L
        } else if (size >= 2 * targetFileSize) size -= window.dequeue().fileSize
      }
    }
    groups.toSeq
  }
}

object AppendCompactPicker {
  /** The picker as a table's options configure it. */
  def of(options: TableOptions): AppendCompactPicker = AppendCompactPicker(options.targetFileSize(primaryKey = false),
    options.compactionFileSize(primaryKey = false), options.splitOpenFileCost, options.compactionMinFileNum)
}
