package paimonspark.catalog.rest

import paimonspark.{CommitConflictException, MetastoreException, SnapshotNotFoundException, TableNotFoundException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{Json, Snapshot, TableSchema}
import paimonspark.table.{CatalogHooks, FileStoreTable, PartitionStatistics, SnapshotCatalog}

/**
 * What a REST catalog is to branch `branch` of its table `db.table` (uuid `uuid`): the keeper of its
 * snapshots and branches. Its latest snapshot is the server's answer, and a commit is `POST .../commit`
 * with the table's uuid, so that a commit never lands on another table that took the name meanwhile. The
 * server writes the snapshot file, rolls back and keeps branches by itself; it has no lock to take;
 * partitions are its own record, kept from each commit's statistics.
 */
final class RestHooks(settings: RestSettings, db: String, table: String, uuid: String,
    branch: String = TablePaths.MainBranch) extends CatalogHooks {
  override def locked[T](publish: => T): T = publish

  // The server writes schema versions itself: SchemaChanges sends it changes, never a schema (REST tables refuse).
  override def schemaChanged(t: FileStoreTable, schema: TableSchema): Unit = ()

  override def committed(t: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit = ()

  /**
   * `mark-event`: `POST .../partitions/mark` with the partitions' specs; a server that keeps no partitions
   * for the table (501: not `metastore.partitioned-table`) has nothing to mark, as Paimon's client takes it.
   * `done-partition` is refused as Paimon refuses it here: the REST catalog does not add partitions.
   */
  override def markDone(t: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit = action match {
    case "mark-event" => snapshots.markDone(partitions.map(t.schema.partitionKeys.zip(_)))
    case _ => CatalogHooks.NoHooks.markDone(t, action, partitions)
  }

  private val snapshots = new RestSnapshots(settings, db, table, uuid, branch)
  override val snapshotCatalog: Option[SnapshotCatalog] = Some(snapshots)

  override def forBranch(name: String): CatalogHooks = new RestHooks(settings, db, table, uuid, name)
}

/** The server's record of one branch's snapshots, and of the table's branches. */
private final class RestSnapshots(settings: RestSettings, db: String, table: String, uuid: String, branch: String)
    extends SnapshotCatalog {
  @transient private lazy val client = new RestClient(settings)
  /** The branch as Paimon's identifiers name it: `t` for main, `t$branch_b` for the others. */
  private def name = if (branch == TablePaths.MainBranch) table else s"$table$$branch_$branch"
  private def path = RestCatalog.tablePath(client, db, name)
  private def branches = s"${RestCatalog.tablePath(client, db, table)}/branches"

  override def latest(): Option[Snapshot] =
    try Some(RestMessages.snapshot(client.get(s"$path/snapshot"))) catch {
      case e: RestStatusException if e.status == 404 && e.resourceType.contains("SNAPSHOT") => None
      case e: RestStatusException if e.status == 404 => throw missing(e)
    }

  override def commit(snapshot: Snapshot, statistics: Seq[PartitionStatistics]): Boolean =
    try RestMessages.committed(client.post(s"$path/commit", RestMessages.commit(uuid, snapshot, statistics))) catch {
      case e: RestStatusException if e.status == 404 => throw missing(e)
      case e: MetastoreException => throw new MetastoreException(settings.uri, s"table $db.$table: the commit of " +
        s"snapshot ${snapshot.id} got no answer, so it may or may not have landed (the next read says); the files " +
        s"it wrote are kept, and orphan cleanup removes them if it did not. ${e.getMessage}", e)
    }

  override def rollback(target: Snapshot, tag: Option[String], from: Long): Unit =
    try client.post(s"$path/rollback", RestMessages.rollback(target.id, tag, from)) catch {
      case e: RestStatusException if e.status == 404 && e.resourceType.exists(Set("SNAPSHOT", "TAG")) =>
        throw new SnapshotNotFoundException(s"table $db.$table: the catalog has no ${tag.fold(s"snapshot ${target.id}")(
          t => s"tag '$t'")} to roll back to: ${e.getMessage}", tag.getOrElse(target.id.toString))
      case e: RestStatusException if e.status == 404 => throw missing(e)
    }

  override def branch(name: String): SnapshotCatalog = new RestSnapshots(settings, db, table, uuid, name)

  override def createBranch(name: String, fromTag: Option[String]): Unit =
    onBranch(name)(client.post(branches, RestMessages.createBranch(name, fromTag)))

  override def dropBranch(name: String): Unit = onBranch(name)(client.delete(s"$branches/${client.encode(name)}"))

  override def renameBranch(from: String, to: String): Unit =
    onBranch(from)(client.post(s"$branches/${client.encode(from)}/rename", RestMessages.renameBranch(to)))

  override def fastForward(name: String): Unit =
    onBranch(name)(client.post(s"$branches/${client.encode(name)}/forward", Json.obj()))

  /** A branch request; the server's 404 or 409 (checked here before, so another writer's doing) named as its. */
  private def onBranch(name: String)(request: => Any): Unit =
    try request catch {
      case e: RestStatusException if e.status == 404 && !e.resourceType.exists(Set("BRANCH", "TAG")) => throw missing(e)
      case e: RestStatusException if Set(404, 409)(e.status) => throw new CommitConflictException(s"$db.$table",
        s"table $db.$table: catalog ${settings.catalog} refused the change to branch '$name': ${e.getMessage}")
    }

  /** `POST .../partitions/mark` with partitions' specs; a 501 (the server keeps none of the table's) marks nothing. */
  def markDone(specs: Seq[Seq[(String, String)]]): Unit =
    try client.post(s"${RestCatalog.tablePath(client, db, table)}/partitions/mark", RestMessages.markDone(specs)) catch {
      case e: RestStatusException if e.status == 501 => ()
      case e: RestStatusException if e.status == 404 => throw missing(e)
    }

  private def missing(e: RestStatusException) =
    new TableNotFoundException(s"$db.$table", s"table $db.$table no longer exists in catalog ${settings.catalog}: " +
      e.getMessage)
}
