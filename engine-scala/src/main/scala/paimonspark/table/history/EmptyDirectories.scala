package paimonspark.table.history

import org.apache.hadoop.fs.Path

import paimonspark.table.FileStoreTable

/** `snapshot.clean-empty-directories`: bucket and partition directories left empty by deletions are removed. */
object EmptyDirectories {
  def clean(table: FileStoreTable, deleted: Seq[Path]): Unit = {
    val root = table.location.toUri.getPath
    var dirs = deleted.map(_.getParent).distinct
    while (dirs.nonEmpty) {
      val removed = dirs.filter(d => d.toUri.getPath.startsWith(root + "/") &&
        table.io.list(d).isEmpty && table.io.delete(d, recursive = false))
      dirs = removed.map(_.getParent).distinct
    }
  }
}
