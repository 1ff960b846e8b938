package paimonspark.table

import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Duration, LocalDateTime}

import paimonspark.{InvalidOptionException, TagNotFoundException, VersionAlreadyExistsException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{Snapshot, Tag, TagJson}
import paimonspark.fs.FileIO

/**
 * The tags of one branch, `tag/tag-<name>`. A tag file is published atomically (create-if-absent),
 * so a reader never sees half a tag and two creators of one name cannot both win. Tags only name
 * snapshots; which files they keep alive is decided by expiry and cleanup.
 */
final class TagManager(io: FileIO, paths: TablePaths) extends Serializable {

  def exists(name: String): Boolean = io.exists(paths.tagFile(name))

  /** A tag's snapshot by id: how a snapshot that expired stays readable while a tag holds it. */
  def snapshotOf(id: Long): Option[Snapshot] = list().map(_._2.snapshot).find(_.id == id)

  /** Tag names, sorted by the id of their snapshot, then by name. */
  def list(): Seq[(String, Tag)] =
    io.list(paths.tagDir).map(_.getPath.getName).filter(_.startsWith(TablePaths.TagPrefix))
      .map(n => n.substring(TablePaths.TagPrefix.length))
      .flatMap(name => readIfExists(name).map(name -> _))
      .sortBy { case (name, tag) => (tag.snapshot.id, name) }

  def read(name: String): Tag = readIfExists(name).getOrElse(throw notFound(name))

  def readIfExists(name: String): Option[Tag] =
    try Some(MetadataFile.read(io, paths.tagFile(name))(b => TagJson.read(new String(b, UTF_8))))
    catch { case _: java.io.FileNotFoundException => None }

  def notFound(name: String): TagNotFoundException = {
    val names = list().map(_._1)
    new TagNotFoundException(tag = name, message = s"table ${paths.root}: tag '$name' does not exist; " +
      (if (names.isEmpty) "the table has no tags" else s"its tags are ${names.mkString(", ")}"))
  }

  /** Creates a tag; fails, writing nothing, if the name is taken. */
  def create(name: String, snapshot: Snapshot, timeRetained: Option[Duration]): Tag = {
    TagManager.checkName(name)
    val tag = Tag(snapshot, timeRetained.map(_ => LocalDateTime.now()), timeRetained)
    if (!io.publish(paths.tagFile(name), TagJson.write(tag).getBytes(UTF_8))) {
      throw new VersionAlreadyExistsException(name, s"table ${paths.root}: tag '$name' already exists")
    }
    tag
  }

  /** Points an existing tag at another snapshot (Paimon's replace_tag). */
  def replace(name: String, snapshot: Snapshot, timeRetained: Option[Duration]): Tag = {
    if (!exists(name)) throw notFound(name)
    val tag = Tag(snapshot, timeRetained.map(_ => LocalDateTime.now()), timeRetained)
    io.overwrite(paths.tagFile(name), TagJson.write(tag).getBytes(UTF_8))
    tag
  }

  def delete(name: String): Unit = if (!io.delete(paths.tagFile(name), recursive = false) && exists(name)) {
    throw new java.io.IOException(s"could not delete ${paths.tagFile(name)}")
  }

  /** Renames a tag: the new name is published first, so the tag is never missing under both names. */
  def rename(from: String, to: String): Unit = {
    TagManager.checkName(to)
    val tag = read(from)
    if (!io.publish(paths.tagFile(to), TagJson.write(tag).getBytes(UTF_8))) {
      throw new VersionAlreadyExistsException(to, s"table ${paths.root}: tag '$to' already exists")
    }
    delete(from)
  }
}

object TagManager {
  /** Tag names become file names. Paimon allows all-digit names: `VERSION AS OF` looks tags up first. */
  def checkName(name: String): Unit = {
    if (name == null || name.trim.isEmpty) throw new InvalidOptionException("tag", "a tag name must not be blank")
    if (name.exists(c => "/\\:*?\"<>|".contains(c) || c < 0x20) || name.startsWith(".")) {
      throw new InvalidOptionException("tag", s"tag name '$name' may not start with '.' or hold / \\ : * ? \" < > |")
    }
  }
}
