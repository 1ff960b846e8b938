package paimonspark.fs

import java.io.{ByteArrayOutputStream, FileNotFoundException, IOException}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{FileAlreadyExistsException, Files}
import java.util.UUID

import org.apache.hadoop.fs.{FileStatus, FileSystem, LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.parquet.hadoop.util.HadoopStreams
import org.apache.parquet.io.{OutputFile, PositionOutputStream}

/**
 * Every filesystem operation the table core needs, over the Hadoop FileSystem API.
 *
 * `publish` is the one operation with a concurrency contract: it creates a file only if it does not
 * exist yet, atomically, so that two processes racing for the same snapshot id cannot both win.
 */
class FileIO(conf: HadoopConf) extends Serializable {

  def hadoopConf: HadoopConf = conf

  /**
   * The filesystem of a path. Local paths use the raw local filesystem: the checksummed one keeps
   * `.crc` side files, which go stale when two processes overwrite the same hint file.
   */
  def fileSystem(path: Path): FileSystem = path.getFileSystem(conf.value) match {
    case local: LocalFileSystem => local.getRawFileSystem
    case other => other
  }

  /** A Parquet output file on this FileIO's filesystem; fails if the file exists. */
  def newOutputFile(path: Path): OutputFile = new OutputFile {
    private val fs = fileSystem(path)
    override def create(blockSizeHint: Long): PositionOutputStream = HadoopStreams.wrap(fs.create(path, false))
    override def createOrOverwrite(blockSizeHint: Long): PositionOutputStream = HadoopStreams.wrap(fs.create(path, true))
    override def supportsBlockSize(): Boolean = false
    override def defaultBlockSize(): Long = 0L
    override def getPath: String = path.toString
  }

  def exists(path: Path): Boolean = fileSystem(path).exists(path)

  def isDirectory(path: Path): Boolean = {
    val fs = fileSystem(path)
    fs.exists(path) && fs.getFileStatus(path).isDirectory
  }

  def length(path: Path): Long = fileSystem(path).getFileStatus(path).getLen

  def readBytes(path: Path): Array[Byte] = {
    val in = fileSystem(path).open(path)
    try {
      val out = new ByteArrayOutputStream()
      in.transferTo(out)
      out.toByteArray
    } finally in.close()
  }

  def readUtf8(path: Path): String = new String(readBytes(path), UTF_8)

  /** Reads a file that may legitimately be absent (hint files). */
  def readUtf8IfExists(path: Path): Option[String] =
    try Some(readUtf8(path))
    catch { case _: FileNotFoundException => None }

  /** Writes a whole file, replacing any existing one. Not atomic; for hints and immutable new files. */
  def writeBytes(path: Path, bytes: Array[Byte]): Unit = {
    val out = fileSystem(path).create(path, true)
    try out.write(bytes)
    finally out.close()
  }

  def writeUtf8(path: Path, text: String): Unit = writeBytes(path, text.getBytes(UTF_8))

  /** The entries of a directory, or nothing when it does not exist. */
  def list(dir: Path): Seq[FileStatus] =
    try fileSystem(dir).listStatus(dir).toSeq
    catch { case _: FileNotFoundException => Seq.empty }

  def mkdirs(dir: Path): Unit = {
    if (!fileSystem(dir).mkdirs(dir) && !isDirectory(dir)) {
      throw new IOException(s"Cannot create directory $dir")
    }
  }

  def delete(path: Path, recursive: Boolean): Boolean = fileSystem(path).delete(path, recursive)

  /**
   * Creates `target` with `bytes` if and only if it does not exist, atomically. Returns false when
   * another writer created it first. Readers never see a partly written target.
   */
  def publish(target: Path, bytes: Array[Byte]): Boolean = {
    val fs = fileSystem(target)
    val temp = tempBeside(target)
    writeBytes(temp, bytes)
    try {
      fs match {
        case raw: RawLocalFileSystem => linkIfAbsent(raw.pathToFile(temp), raw.pathToFile(target))
        // HDFS-like stores: rename fails when the destination exists, atomically.
        case other => other.rename(temp, target)
      }
    } finally {
      fs.delete(temp, false)
    }
  }

  /**
   * Writes `target` whole, replacing any existing one: written aside and moved over it, so readers
   * see the old content or the new one (see [[replace]] for stores without atomic renames).
   */
  def overwrite(target: Path, bytes: Array[Byte]): Unit = {
    val temp = tempBeside(target)
    writeBytes(temp, bytes)
    replace(temp, target)
  }

  /** A hidden temporary name next to `target`, which listings of ids ignore. */
  private def tempBeside(target: Path): Path = new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")

  /**
   * Moves `source` over `target`, replacing it: atomically on local filesystems; elsewhere the old
   * target is removed first, so a reader may briefly find neither.
   */
  def replace(source: Path, target: Path): Unit = fileSystem(target) match {
    case raw: RawLocalFileSystem =>
      Files.move(raw.pathToFile(source).toPath, raw.pathToFile(target).toPath,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
    case other =>
      other.delete(target, false)
      if (!other.rename(source, target)) throw new IOException(s"Cannot move $source to $target")
  }

  // A POSIX rename replaces its target, so local files are published with a hard link, which fails
  // atomically when the name is taken, even between separate processes.
  private def linkIfAbsent(temp: java.io.File, target: java.io.File): Boolean =
    try {
      Files.createLink(target.toPath, temp.toPath)
      true
    } catch {
      case _: FileAlreadyExistsException => false
    }
}
