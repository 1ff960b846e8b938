package paimonspark.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.api.{EnvironmentContext, NoSuchObjectException, Partition, PartitionEventType,
  StorageDescriptor}
import org.apache.hadoop.hive.metastore.api.Table

import paimonspark.InvalidOptionException
import paimonspark.format.PartitionPath
import paimonspark.format.metadata.{Snapshot, TableSchema}
import paimonspark.table.{CatalogHooks, FileStoreTable, IcebergRegistry}

/**
 * What a metastore catalog adds to the commits of its table `db.table`: the metastore's table lock
 * around each publish when `locked`, the metastore's record following each schema change, and with
 * `metastore.partitioned-table` its partitions following the files (Paimon's
 * `AddPartitionCommitCallback`) and partitions marked done there.
 */
final class MetastoreHooks(settings: MetastoreSettings, db: String, table: String, locked: Boolean) extends CatalogHooks {
  private def clients = MetastoreClients.of(settings)

  override def icebergRegistry: Option[IcebergRegistry] = Some(new IcebergHiveRegistry(Some(settings), settings.catalog, db, table))

  override def locked[T](publish: => T): T =
    if (locked) new MetastoreLock(settings, db, table).holding(publish) else publish

  override def schemaChanged(t: FileStoreTable, schema: TableSchema): Unit =
    updateRecord(schema, t.schemaWithId(schema.id - 1).options.keySet -- schema.options.keySet)

  /** The metastore's record of the table brought up to `schema`, less the `removed` options; unchanged if it is. */
  def updateRecord(schema: TableSchema, removed: Set[String]): Unit = {
    val record = clients.run(s"load table $db.$table")(_.getTable(db, table))
    if (!HmsTables.isPaimon(record)) throw MetastoreCatalog.notPaimon(db, table, record)
    val altered = HmsTables.altered(record, schema, removed, settings)
    if (altered != record) {
      // CASCADE, as Paimon asks: partitions the metastore holds take the new columns too.
      val context = new EnvironmentContext(Map("CASCADE" -> "true").asJava)
      clients.run(s"alter table $db.$table")(_.alter_table_with_environmentContext(db, table, altered, context))
    }
  }

  override def committed(t: FileStoreTable, snapshot: Snapshot, added: Set[Seq[Byte]], removed: Set[Seq[Byte]]): Unit =
    if (HmsTables.metastorePartitioned(t.schema)) {
      addPartitions(t, added)
      val emptied = emptiedPartitions(t, snapshot, removed -- added)
      emptied.foreach { p =>
        val values = t.partitionValues(p.toArray).asJava
        clients.run(s"drop a partition of $db.$table") { c =>
          try c.dropPartition(db, table, values, false) catch { case _: NoSuchObjectException => false }
        }
      }
    }

  /** Registers `partitions` (serialized) of the table `t` that the metastore does not hold yet. */
  def addPartitions(t: FileStoreTable, partitions: Set[Seq[Byte]]): Unit = if (partitions.nonEmpty) {
    val record = clients.run(s"load table $db.$table")(_.getTable(db, table))
    val records = partitions.toSeq.map(p => partition(t, record, t.partitionValues(p.toArray)))
    clients.run(s"add partitions of $db.$table")(_.add_partitions(records.asJava, true, false))
  }

  /** Of `candidates`, the partitions that have no live file left in `snapshot`. */
  private def emptiedPartitions(t: FileStoreTable, snapshot: Snapshot, candidates: Set[Seq[Byte]]): Set[Seq[Byte]] =
    if (candidates.isEmpty) Set.empty
    else {
      val store = t.newManifestStore()
      candidates -- store.liveFiles(store.dataManifests(snapshot), e => candidates(e.partition.toSeq)).map(_.partition.toSeq)
    }

  /**
   * Paimon's `done-partition` (a partition whose last value ends in `.done`, beside the one marked)
   * and `mark-event` (the metastore's LOAD_DONE event), on tables whose partitions it holds.
   */
  override def markDone(t: FileStoreTable, action: String, partitions: Seq[Seq[String]]): Unit = {
    if (!HmsTables.metastorePartitioned(t.schema)) {
      throw new InvalidOptionException("metastore.partitioned-table", s"table $db.$table: partition.mark-done-action " +
        s"'$action': Table should enable metastore.partitioned-table")
    }
    val keys = t.schema.partitionKeys
    action match {
      case "done-partition" =>
        lazy val record = clients.run(s"load table $db.$table")(_.getTable(db, table))
        val done = partitions.map(values => partition(t, record, values.init :+ s"${values.last}.done"))
        clients.run(s"add done partitions of $db.$table")(_.add_partitions(done.asJava, true, false))
      case "mark-event" => partitions.foreach { values =>
        clients.run(s"mark a partition of $db.$table done")(
          _.markPartitionForEvent(db, table, keys.zip(values).toMap.asJava, PartitionEventType.LOAD_DONE))
      }
    }
  }

  private def partition(t: FileStoreTable, record: Table, values: Seq[String]): Partition = {
    val now = (System.currentTimeMillis() / 1000).toInt
    val sd = new StorageDescriptor(record.getSd)
    val location = new org.apache.hadoop.fs.Path(t.location, PartitionPath.ofValues(t.schema.partitionKeys, values)).toString
    val partition = new Partition(values.asJava, db, table, now, now, sd, new java.util.HashMap[String, String]())
    if (settings.locationInProperties) partition.getParameters.put(HmsTables.LocationParameter, location)
    else sd.setLocation(location)
    partition
  }
}
