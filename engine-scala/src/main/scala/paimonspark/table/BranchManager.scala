package paimonspark.table

import paimonspark.{BranchNotFoundException, InvalidOptionException, VersionAlreadyExistsException}
import paimonspark.format.TablePaths
import paimonspark.fs.FileIO

/**
 * The branches of a table, `branch/branch-<name>/`, each with its own schemas, snapshots and tags
 * and sharing the table's data and manifest files. `paths` may be any branch's: branches are
 * always named from the table root. Where a `catalog` keeps the table's branches (REST), changes are
 * checked here and made by it; it writes the same files.
 */
final class BranchManager(io: FileIO, paths: TablePaths, catalog: Option[SnapshotCatalog] = None) extends Serializable {
  private val main = paths.forBranch(TablePaths.MainBranch)

  def exists(name: String): Boolean =
    name == TablePaths.MainBranch || new SchemaManager(io, paths.forBranch(name)).listIds().nonEmpty

  /** Branch names other than `main`, sorted. */
  def list(): Seq[String] =
    io.list(paths.branchDir).map(_.getPath.getName).filter(_.startsWith(TablePaths.BranchPrefix))
      .map(_.substring(TablePaths.BranchPrefix.length)).filter(exists).sorted

  /** When a branch was created: its directory's modification time, as Paimon reports it. */
  def createdMillis(name: String): Long = io.fileSystem(paths.branchRoot(name)).getFileStatus(paths.branchRoot(name))
    .getModificationTime

  def notFound(name: String): BranchNotFoundException = {
    val names = list()
    new BranchNotFoundException(branch = name, message = s"table ${paths.root}: branch '$name' does not exist; " +
      (if (names.isEmpty) "the table has no branches besides main" else s"its branches are main, ${names.mkString(", ")}"))
  }

  /**
   * Creates a branch of the main branch. From a tag, it starts with that tag, its snapshot (taken
   * from the tag, so a tag whose snapshot expired works too) and the schemas up to the snapshot's;
   * without one, empty, with main's schemas. The schema files are copied last, since a branch
   * exists once it has a schema.
   */
  def create(name: String, fromTag: Option[String]): Unit = {
    BranchManager.checkName(name)
    if (exists(name)) throw new VersionAlreadyExistsException(name, s"table ${paths.root}: branch '$name' already exists")
    fromTag.foreach(new TagManager(io, main).read)
    catalog.fold(createFiles(name, fromTag))(_.createBranch(name, fromTag))
  }

  private def createFiles(name: String, fromTag: Option[String]): Unit = {
    val branch = paths.forBranch(name)
    val mainSchemas = new SchemaManager(io, main)
    val schemaIds = fromTag match {
      case Some(tagName) =>
        val tag = new TagManager(io, main).read(tagName)
        copy(main.tagFile(tagName), branch.tagFile(tagName))
        new SnapshotManager(io, branch).restore(tag.snapshot)
        new SnapshotManager(io, branch).writeLatestHint(tag.snapshot.id)
        mainSchemas.listIds().filter(_ <= tag.snapshot.schemaId)
      case None => mainSchemas.listIds()
    }
    schemaIds.foreach(id => copy(main.schemaFile(id), branch.schemaFile(id)))
  }

  /** Deletes a branch's metadata; the data files only it used become orphans for cleanup. */
  def delete(name: String): Unit = {
    if (name == TablePaths.MainBranch) throw new InvalidOptionException("branch", "the main branch cannot be deleted")
    if (!exists(name)) throw notFound(name)
    catalog.fold[Unit](io.delete(paths.branchRoot(name), recursive = true))(_.dropBranch(name))
  }

  /**
   * Renames a branch by renaming its directory, as Paimon does: one atomic step on HDFS and local
   * disks; on an object store a copy, so no writer should use the branch meanwhile.
   */
  def rename(from: String, to: String): Unit = {
    if (from == TablePaths.MainBranch) throw new InvalidOptionException("from_branch", "the main branch cannot be renamed")
    if (!exists(from)) throw notFound(from)
    BranchManager.checkName(to)
    if (exists(to)) throw new VersionAlreadyExistsException(to, s"table ${paths.root}: branch '$to' already exists")
    catalog.fold(renameFiles(from, to))(_.renameBranch(from, to))
  }

  private def renameFiles(from: String, to: String): Unit = {
    if (!io.rename(paths.branchRoot(from), paths.branchRoot(to))) {
      throw new java.io.IOException(s"could not rename ${paths.branchRoot(from)} to ${paths.branchRoot(to)}")
    }
  }

  private def copy(from: org.apache.hadoop.fs.Path, to: org.apache.hadoop.fs.Path): Unit = io.publish(to, io.readBytes(from))
}

object BranchManager {
  def checkName(name: String): Unit = {
    if (name == null || name.trim.isEmpty) throw new InvalidOptionException("branch", "a branch name must not be blank")
    if (name == TablePaths.MainBranch) throw new InvalidOptionException("branch", "'main' is the table's own branch")
    if (name.forall(_.isDigit)) throw new InvalidOptionException("branch", s"branch name '$name' must not be all digits")
    if (name.exists(c => "/\\:*?\"<>|$".contains(c) || c < 0x20) || name.startsWith(".")) {
      throw new InvalidOptionException("branch", s"branch name '$name' may not start with '.' or hold / \\ : * ? \" < > | $$")
    }
  }
}
