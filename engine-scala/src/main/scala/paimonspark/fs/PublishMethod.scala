package paimonspark.fs

import java.io.IOException
import java.nio.file.{FileAlreadyExistsException, Files}
import java.util.UUID

import org.apache.hadoop.fs.{FSDataOutputStream, FileSystem, Path, RawLocalFileSystem}

import paimonspark.StorageException

/**
 * How one store creates a file only if it does not exist yet, atomically: the operation every
 * commit, schema change, tag and branch rests on. Two writers racing for the same name must not
 * both win, and a reader never sees a partly written file.
 */
sealed trait PublishMethod {
  /** Creates `target` with `bytes`; false when another writer created it first. */
  def publish(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean
}

object PublishMethod {
  /** Hadoop's builder option for create-if-absent (`If-None-Match: *` on S3A), and its capability. */
  val ConditionalCreate = "fs.option.create.conditional.overwrite"

  /** The table option that lets one writer commit to an object store without conditional writes. */
  val SingleWriterOption = "commit.object-store.single-writer"

  /** Schemes of object stores: no atomic rename, so rename cannot make a decision on them. */
  private val ObjectStoreSchemes =
    Set("s3", "s3a", "s3n", "gs", "oss", "cos", "cosn", "obs", "abfs", "abfss", "wasb", "wasbs", "jfs")

  def isObjectStore(fs: FileSystem, path: Path): Boolean =
    ObjectStoreSchemes.contains(Option(fs.getUri.getScheme).getOrElse("").toLowerCase) ||
      fs.hasPathCapability(path, "fs.capability.etags.available")

  /**
   * The method for `path`'s store: a hard link on local disks, the conditional create where the
   * store declares it or its connector is proven to make a plain create exclusive, a rename that
   * fails on an existing target elsewhere (HDFS). An object store without either is refused unless
   * the table promises a single writer.
   */
  def of(fs: FileSystem, path: Path, singleWriter: Boolean): PublishMethod = fs match {
    case raw: RawLocalFileSystem => new HardLink(raw)
    case _ if fs.hasPathCapability(path, ConditionalCreate) => ConditionalPut
    case _ if ExclusiveCreates.proven(fs) => ExclusiveCreate
    case _ if isObjectStore(fs, path) =>
      if (singleWriter) SingleWriterPut
      else throw ExclusiveCreates.lacking(fs).fold(withoutConditionalWrites(fs, path, "does not offer conditional writes", null))(
        missing => new StorageException(path.toString, s"Cannot commit to $path: $missing, so two writers could both " +
          s"win the same snapshot. Set them, or the table option '$SingleWriterOption'='true' if only one writer " +
          "ever commits to this table"))
    case _ => RenameIfAbsent
  }

  private def withoutConditionalWrites(fs: FileSystem, path: Path, what: String, cause: Throwable) =
    new StorageException(path.toString, s"Cannot commit to $path: the object store ${fs.getUri} $what (for S3A: " +
      s"fs.s3a.create.conditional.enabled=true, the default, and a store that honours If-None-Match), so two writers " +
      s"could both win the same snapshot. Enable them, or set the table option '$SingleWriterOption'='true' (and, for " +
      s"S3A, fs.s3a.create.conditional.enabled=false) if only one writer ever commits to this table", cause)

  // A POSIX rename replaces its target, so local files are published with a hard link, which fails
  // atomically when the name is taken, even between separate processes.
  private final class HardLink(raw: RawLocalFileSystem) extends PublishMethod {
    override def publish(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
      withTemp(fs, target, bytes) { temp =>
        try {
          Files.createLink(raw.pathToFile(target).toPath, raw.pathToFile(temp).toPath)
          true
        } catch { case _: FileAlreadyExistsException => false }
      }
  }

  // HDFS-like stores: rename fails when the destination exists, atomically.
  private object RenameIfAbsent extends PublishMethod {
    override def publish(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
      withTemp(fs, target, bytes)(temp => fs.rename(temp, target))
  }

  /**
   * One request that the store refuses when the name is taken (HTTP 412, or 409 on Azure). A refusal
   * alone does not prove another writer won: a request whose first attempt landed and whose response
   * was lost comes back refused when the client retries it. The file is read back: our own bytes mean
   * our create landed. A 409 that is not a taken name (another conditional write to the name still in
   * flight, on S3) is retried.
   */
  private abstract class CreateIfAbsent extends PublishMethod {
    private val Attempts = 5

    /** Opens the create; the store's refusal surfaces here or when the stream closes. */
    protected def open(fs: FileSystem, target: Path): FSDataOutputStream

    override def publish(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean = publish(fs, target, bytes, 1)

    private def publish(fs: FileSystem, target: Path, bytes: Array[Byte], attempt: Int): Boolean =
      try {
        val out = open(fs, target)
        try out.write(bytes)
        finally out.close()
        true
      } catch {
        // A store that probes before writing (or Azure, with 409) reports the taken name as FileAlreadyExistsException.
        case e: IOException if StoreErrors.isPreconditionFailed(e) ||
            e.isInstanceOf[org.apache.hadoop.fs.FileAlreadyExistsException] => holds(fs, target, bytes)
        case e: IOException if StoreErrors.isConflict(e) && attempt < Attempts =>
          Thread.sleep(20L << attempt)
          publish(fs, target, bytes, attempt + 1)
        case e: IOException if StoreErrors.isNotImplemented(e) =>
          throw withoutConditionalWrites(fs, target, "refused a conditional write (HTTP 501)", e)
      }

    private def holds(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
      PublishedFile.read(fs, target).exists(java.util.Arrays.equals(_, bytes))
  }

  /** S3A's conditional create (`If-None-Match: *`), asked for by its builder option. */
  private object ConditionalPut extends CreateIfAbsent {
    override protected def open(fs: FileSystem, target: Path): FSDataOutputStream =
      fs.createFile(target).must(ConditionalCreate, true).overwrite(false).build()
  }

  /** A plain create without overwrite, on connectors proven to make it exclusive ([[ExclusiveCreates]]). */
  private object ExclusiveCreate extends CreateIfAbsent {
    override protected def open(fs: FileSystem, target: Path): FSDataOutputStream = fs.create(target, false)
  }

  // Check-then-put: safe only with one writer, which the table option promised.
  private object SingleWriterPut extends PublishMethod {
    override def publish(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
      !fs.exists(target) && {
        val out = fs.create(target, false)
        try out.write(bytes)
        finally out.close()
        true
      }
  }

  private def withTemp(fs: FileSystem, target: Path, bytes: Array[Byte])(move: Path => Boolean): Boolean = {
    val temp = tempBeside(target)
    val out = fs.create(temp, true)
    try out.write(bytes)
    finally out.close()
    try move(temp)
    finally fs.delete(temp, false)
  }

  /** A hidden temporary name next to `target`, which listings of ids ignore and orphan cleanup removes. */
  def tempBeside(target: Path): Path = new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")
}
