package paimonspark.catalog.rest

import java.net.URI
import java.nio.file.AccessDeniedException

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FSDataOutputStream, FileStatus, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/**
 * Local files under the scheme `rest-test-file-io`, as a store that takes only the storage credentials
 * its catalog handed out would: every operation needs the setting `fs.rest-test-file-io.token` it was
 * created with to be among [[TokenCheckedFileSystem.valid]] now, and is refused (access denied) otherwise.
 */
final class TokenCheckedFileSystem extends RawLocalFileSystem {
  private var token: Option[String] = None

  override def getUri: URI = TokenCheckedFileSystem.Uri
  override def getScheme: String = TokenCheckedFileSystem.Scheme

  override def initialize(uri: URI, conf: Configuration): Unit = {
    super.initialize(uri, conf)
    token = Option(conf.get(TokenCheckedFileSystem.TokenKey))
  }

  private def checked[T](path: Path)(f: => T): T =
    if (token.exists(TokenCheckedFileSystem.valid.contains)) f
    else throw new AccessDeniedException(path.toString, null, s"token ${token.getOrElse("(none)")} is not valid")

  override def open(f: Path, bufferSize: Int): FSDataInputStream = checked(f)(super.open(f, bufferSize))
  override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
      blockSize: Long, progress: Progressable): FSDataOutputStream =
    checked(f)(super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress))
  override def getFileStatus(f: Path): FileStatus = checked(f)(super.getFileStatus(f))
  override def listStatus(f: Path): Array[FileStatus] = checked(f)(super.listStatus(f))
  override def delete(f: Path, recursive: Boolean): Boolean = checked(f)(super.delete(f, recursive))
  override def rename(src: Path, dst: Path): Boolean = checked(src)(super.rename(src, dst))
  override def mkdirs(f: Path, permission: FsPermission): Boolean = checked(f)(super.mkdirs(f, permission))
}

object TokenCheckedFileSystem {
  val Scheme = "rest-test-file-io"
  val Uri: URI = URI.create(s"$Scheme:///")
  val TokenKey = s"fs.$Scheme.token"

  /** The tokens the store takes now. */
  @volatile var valid: Set[String] = Set.empty

  /** The Hadoop setting that makes `rest-test-file-io:` paths this filesystem's. */
  val Impl: (String, String) = s"fs.$Scheme.impl" -> classOf[TokenCheckedFileSystem].getName
}
