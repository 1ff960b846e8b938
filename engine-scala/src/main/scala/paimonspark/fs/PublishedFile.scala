package paimonspark.fs

import java.io.FileNotFoundException

import scala.annotation.tailrec

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

import paimonspark.StorageException

/**
 * A published file (snapshot, schema, tag: never empty) as readers must take it. Azure shows a file
 * from the moment its create lands, empty until its writer closes it: an empty one is being written,
 * or was left by a writer that stopped between the two requests, and counts as absent.
 */
object PublishedFile {
  def isComplete(status: FileStatus): Boolean = status.getLen > 0

  private val Waits = 20
  private val WaitMillis = 100L

  /**
   * The bytes of `path`, or None when it does not exist. An empty file is waited for (a racing writer
   * closing it); one that stays empty is an error naming it, since its name can never be published.
   */
  @tailrec def read(fs: FileSystem, path: Path, waits: Int = 0): Option[Array[Byte]] = readAll(fs, path) match {
    case Some(bytes) if bytes.isEmpty =>
      if (waits == Waits) {
        throw new StorageException(path.toString, s"$path is empty: a writer stopped between creating it and " +
          "writing it. Readers ignore it, but its name cannot be published again: delete it (CALL " +
          "sys.remove_orphan_files removes such files) for commits to go on")
      }
      Thread.sleep(WaitMillis)
      read(fs, path, waits + 1)
    case other => other
  }

  private def readAll(fs: FileSystem, path: Path): Option[Array[Byte]] =
    try {
      val in = fs.open(path)
      try Some(in.readAllBytes()) finally in.close()
    } catch { case _: FileNotFoundException => None }
}
