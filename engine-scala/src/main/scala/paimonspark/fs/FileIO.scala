package paimonspark.fs

import java.io.{ByteArrayOutputStream, FileNotFoundException, IOException}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{AccessDeniedException, Files, StandardCopyOption}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataOutputStream, FileStatus, FileSystem, LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.parquet.hadoop.util.HadoopStreams
import org.apache.parquet.io.{OutputFile, PositionOutputStream}

import paimonspark.StorageException

/**
 * Every filesystem operation the table core needs, over the Hadoop FileSystem API.
 *
 * `publish` is the one operation with a concurrency contract: it creates a file only if it does not
 * exist yet, atomically, so that two processes racing for the same snapshot id cannot both win. How
 * depends on the store ([[PublishMethod]]).
 *
 * A table whose catalog hands out storage `credentials` for its files reaches them with those, on
 * top of `conf`, and nothing else does.
 */
class FileIO(conf: HadoopConf, singleWriter: Boolean = false, credentials: Option[StorageCredentials] = None)
    extends Serializable {

  /** The Hadoop settings files are opened with: the credentials' on top of the session's. */
  def hadoopConf: HadoopConf = credentials.fold(conf)(c => new HadoopConf(c.applied(conf.value)._2))

  /**
   * This FileIO for a table whose writers promise there is only ever one of them
   * ([[PublishMethod.SingleWriterOption]]): it may publish on object stores without conditional writes.
   */
  def assumingSingleWriter: FileIO = if (singleWriter) this else new FileIO(conf, singleWriter = true, credentials)

  /** This FileIO reaching files with `c`, a table's own storage credentials. */
  def withCredentials(c: StorageCredentials): FileIO = new FileIO(conf, singleWriter, Some(c))

  /**
   * The filesystem of a path. Local paths use the raw local filesystem: the checksummed one keeps
   * `.crc` side files, which go stale when two processes overwrite the same hint file.
   */
  def fileSystem(path: Path): FileSystem = {
    val fs = credentials.fold(path.getFileSystem(conf.value)) { c =>
      val (now, withThem) = c.applied(conf.value)
      StorageCredentials.as(now)(path.getFileSystem(withThem))
    }
    fs match {
      case local: LocalFileSystem => local.getRawFileSystem
      case other => other
    }
  }

  /** Runs `op` on `path`: the store refusing access (credentials it does not take) is named as such. */
  private def onStore[T](path: Path)(op: => T): T =
    try op catch {
      case e: AccessDeniedException =>
        throw new StorageException(path.toString, s"$path: its store refused access: ${e.getMessage}", e)
    }

  /**
   * Runs `open`, which opens files with `hadoop` (a reader's own copy of [[hadoopConf]]), with this
   * FileIO's credentials as they are now: their settings put in `hadoop`, Hadoop's FileSystems theirs.
   */
  def opening[T](hadoop: Configuration)(open: => T): T = credentials.fold(open) { c =>
    val now = c.get()
    now.hadoopSettings.foreach { case (k, v) => hadoop.set(k, v) }
    StorageCredentials.as(now)(open)
  }

  /** A Parquet output file on this FileIO's filesystem; fails if the file exists. */
  def newOutputFile(path: Path): OutputFile = new OutputFile {
    private val fs = fileSystem(path)
    override def create(blockSizeHint: Long): PositionOutputStream = HadoopStreams.wrap(FileIO.create(fs, path, false))
    override def createOrOverwrite(blockSizeHint: Long): PositionOutputStream =
      HadoopStreams.wrap(FileIO.create(fs, path, true))
    override def supportsBlockSize(): Boolean = false
    override def defaultBlockSize(): Long = 0L
    override def getPath: String = path.toString
  }

  def exists(path: Path): Boolean = onStore(path)(fileSystem(path).exists(path))

  /** Whether a published file exists whole: one still being created ([[PublishedFile]]) does not. */
  def existsPublished(path: Path): Boolean =
    try onStore(path)(PublishedFile.isComplete(fileSystem(path).getFileStatus(path)))
    catch { case _: FileNotFoundException => false }

  def isDirectory(path: Path): Boolean =
    try onStore(path)(fileSystem(path).getFileStatus(path).isDirectory)
    catch { case _: FileNotFoundException => false }

  /**
   * A whole file. Files replaced in place (hints, consumers, tags) may change while they are read;
   * an object store then fails the read (412: the object changed since it was opened), and the file
   * is read again, whole, at its new version.
   */
  def readBytes(path: Path): Array[Byte] = readBytes(path, attempts = 3)

  private def readBytes(path: Path, attempts: Int): Array[Byte] =
    try readOnce(path)
    catch { case e: IOException if attempts > 1 && StoreErrors.isPreconditionFailed(e) => readBytes(path, attempts - 1) }

  private def readOnce(path: Path): Array[Byte] = {
    val in = onStore(path)(fileSystem(path).open(path))
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
    val out = onStore(path)(FileIO.create(fileSystem(path), path, overwrite = true))
    try out.write(bytes)
    finally out.close()
  }

  def writeUtf8(path: Path, text: String): Unit = writeBytes(path, text.getBytes(UTF_8))

  /** The entries of a directory, or nothing when it does not exist. */
  def list(dir: Path): Seq[FileStatus] =
    try onStore(dir)(fileSystem(dir).listStatus(dir).toSeq)
    catch { case _: FileNotFoundException => Seq.empty }

  def mkdirs(dir: Path): Unit = {
    if (!fileSystem(dir).mkdirs(dir) && !isDirectory(dir)) {
      throw new IOException(s"Cannot create directory $dir")
    }
  }

  def delete(path: Path, recursive: Boolean): Boolean = onStore(path)(fileSystem(path).delete(path, recursive))

  /** Moves a file or directory; false when `to` exists or `from` does not (a copy, on object stores). */
  def rename(from: Path, to: Path): Boolean = !exists(to) && fileSystem(from).rename(from, to)

  /**
   * Creates `target` with `bytes` if and only if it does not exist, atomically. Returns false when
   * another writer created it first. Readers never see a partly written target.
   */
  def publish(target: Path, bytes: Array[Byte]): Boolean = {
    val fs = fileSystem(target)
    onStore(target)(PublishMethod.of(fs, target, singleWriter).publish(fs, target, bytes))
  }

  /**
   * Fails, naming the store and the option, when files under `path` cannot be published safely:
   * called before a write or a table creation does anything.
   */
  def checkPublishable(path: Path): Unit = PublishMethod.of(fileSystem(path), path, singleWriter)

  /**
   * Copies file `from` to `to` on `target`'s storage, streaming. A copy left half-written by a failed
   * attempt is replaced: the names copies go to are new, nothing else writes them.
   */
  def copy(from: Path, target: FileIO, to: Path): Unit = {
    val in = fileSystem(from).open(from)
    try {
      val out = FileIO.create(target.fileSystem(to), to, overwrite = true)
      try org.apache.hadoop.io.IOUtils.copyBytes(in, out, 1 << 16, false) finally out.close()
    } finally in.close()
  }

  /** True for stores without atomic renames, where a whole-object PUT is what replaces a file atomically. */
  def isObjectStore(path: Path): Boolean = PublishMethod.isObjectStore(fileSystem(path), path)

  /**
   * Writes `target` whole, replacing any existing one, so that readers see the old content or the
   * new one: one PUT on an object store; elsewhere written aside and moved over it.
   */
  def overwrite(target: Path, bytes: Array[Byte]): Unit =
    if (isObjectStore(target)) writeBytes(target, bytes)
    else {
      val temp = PublishMethod.tempBeside(target)
      writeBytes(temp, bytes)
      fileSystem(target) match {
        case raw: RawLocalFileSystem =>
          Files.move(raw.pathToFile(temp).toPath, raw.pathToFile(target).toPath,
            StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING)
        // HDFS renames do not replace: the old target is removed first, so a reader may briefly find neither.
        case other =>
          other.delete(target, false)
          if (!other.rename(temp, target)) throw new IOException(s"Cannot move $temp to $target")
      }
    }
}

object FileIO {
  /**
   * A new output stream at `path`, its parents created. Object stores skip the probes a create
   * makes first (is the name taken, is it a directory): every name this engine writes is new
   * (unique data and manifest names) or replaced whole (hints), and names that must not be taken
   * are published instead ([[PublishMethod]]).
   */
  private def create(fs: FileSystem, path: Path, overwrite: Boolean): FSDataOutputStream =
    fs.createFile(path).overwrite(overwrite).recursive().opt("fs.s3a.create.performance", true).build()
}
