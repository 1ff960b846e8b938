package paimonspark.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.metastore.api.{Database, EnvironmentContext, FieldSchema, NoSuchObjectException, SerDeInfo,
  StorageDescriptor, Table}

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.table.{FileStoreTable, IcebergRegistry}

/**
 * `metadata.iceberg.storage` = `hive-catalog`, as Paimon's `IcebergHiveMetadataCommitter` does it: an external
 * Iceberg table (`table_type` ICEBERG) in a Hive Metastore whose `metadata_location` follows each version of the
 * metadata, so that Iceberg's Hive catalogs find it. The metastore is the one `metadata.iceberg.uri` (or the
 * hive-site.xml of `metadata.iceberg.hive-conf-dir`) names, else the table's own Hive catalog's (`catalog`,
 * None for a filesystem catalog); the Iceberg table is `metadata.iceberg.database`.`metadata.iceberg.table`,
 * by default the Paimon table's own `db`.`table`.
 */
final class IcebergHiveRegistry(catalog: Option[MetastoreSettings], catalogName: String, db: String, table: String)
    extends IcebergRegistry {
  import IcebergHiveRegistry._

  private def option(t: FileStoreTable, key: String): Option[String] = t.schema.options.get(key).map(_.trim).filter(_.nonEmpty)

  /** The metastore the Iceberg table is in: the catalog's, with the table's `metadata.iceberg.*` settings over it. */
  private def settings(t: FileStoreTable): MetastoreSettings = {
    val overrides = Seq(UriKey -> MetastoreSettings.Uri, HiveConfDirKey -> MetastoreSettings.HiveConfDir,
      ClientClassKey -> MetastoreSettings.ClientClass).flatMap { case (key, setting) => option(t, key).map(setting -> _) }
    try MetastoreSettings(catalogName, catalog.map(_.options).getOrElse(Map.empty) ++ overrides)
    catch {
      case e: InvalidOptionException => throw new InvalidOptionException(UriKey, s"table $db.$table: " +
        s"metadata.iceberg.storage 'hive-catalog' needs the metastore its Iceberg table goes to: set $UriKey " +
        s"(thrift://host:port) or $HiveConfDirKey (${e.getMessage})")
    }
  }

  private def target(t: FileStoreTable): (String, String) =
    (option(t, DatabaseKey).getOrElse(db), option(t, TableKey).getOrElse(table))

  override def check(t: FileStoreTable): Unit = {
    val metastore = settings(t)
    if (catalog.exists(_.uri == metastore.uri) && target(t) == (db, table)) {
      throw new UnsupportedFeatureException(s"table $db.$table: metadata.iceberg.storage 'hive-catalog' would register " +
        s"its Iceberg table as $db.$table in the metastore that holds the Paimon table of that name; set $DatabaseKey " +
        s"or $TableKey to another name", DatabaseKey)
    }
  }

  override def register(t: FileStoreTable, metadata: Path, base: Option[Path]): Unit = {
    val metastore = settings(t)
    val clients = MetastoreClients.of(metastore)
    val (icebergDb, icebergTable) = target(t)
    val name = s"$icebergDb.$icebergTable"
    val exists = clients.run(s"look up database $icebergDb") { c =>
      try { c.getDatabase(icebergDb); true } catch { case _: NoSuchObjectException => false }
    }
    if (!exists) {
      val database = new Database()
      database.setName(icebergDb)
      database.setLocationUri(new Path(new Path(t.location.getParent.getParent, "iceberg"), db).toString)
      clients.run(s"create database $icebergDb")(_.createDatabase(database))
    }
    val record = if (clients.run(s"look up table $name")(_.tableExists(icebergDb, icebergTable))) {
      clients.run(s"load table $name")(_.getTable(icebergDb, icebergTable))
    } else {
      val created = newRecord(t, icebergDb, icebergTable, metadata)
      clients.run(s"create table $name")(_.createTable(created))
      created
    }
    if (HmsTables.isPaimon(record)) {
      throw new UnsupportedFeatureException(s"table $db.$table: its Iceberg table $name would replace the Paimon " +
        s"table of that name; set $DatabaseKey or $TableKey to another name", DatabaseKey)
    }
    record.getParameters.put(MetadataLocation, metadata.toString)
    base.foreach(b => record.getParameters.put(PreviousMetadataLocation, b.toString))
    record.getSd.setCols(columns(t))
    val context = new EnvironmentContext(Map("CASCADE" -> "true",
      "skipAWSGlueArchive" -> option(t, GlueSkipArchiveKey).getOrElse("false"),
      "DO_NOT_UPDATE_STATS" -> option(t, SkipUpdateStatsKey).getOrElse("false")).asJava)
    clients.run(s"point $name at $metadata")(_.alter_table_with_environmentContext(icebergDb, icebergTable, record, context))
  }

  private def newRecord(t: FileStoreTable, icebergDb: String, icebergTable: String, metadata: Path): Table = {
    val now = (System.currentTimeMillis() / 1000).toInt
    val sd = new StorageDescriptor()
    sd.setLocation(metadata.getParent.getParent.toString)
    sd.setCols(columns(t))
    sd.setInputFormat("org.apache.hadoop.mapred.FileInputFormat")
    sd.setOutputFormat("org.apache.hadoop.mapred.FileOutputFormat")
    val serDe = new SerDeInfo()
    serDe.setSerializationLib("org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
    sd.setSerdeInfo(serDe)
    val parameters = new java.util.HashMap[String, String](Map("DO_NOT_UPDATE_STATS" ->
      option(t, SkipUpdateStatsKey).getOrElse("false"), "EXTERNAL" -> "TRUE", "table_type" -> "ICEBERG").asJava)
    new Table(icebergTable, icebergDb, System.getProperty("user.name"), now, now, Int.MaxValue, sd,
      java.util.Collections.emptyList(), parameters, null, null, HmsTables.ExternalTable)
  }

  private def columns(t: FileStoreTable): java.util.List[FieldSchema] =
    t.schema.fields.map(f => new FieldSchema(f.name, HiveTypes.of(f.dataType), f.description.orNull)).asJava
}

object IcebergHiveRegistry {
  val UriKey = "metadata.iceberg.uri"
  val HiveConfDirKey = "metadata.iceberg.hive-conf-dir"
  val ClientClassKey = "metadata.iceberg.hive-client-class"
  val DatabaseKey = "metadata.iceberg.database"
  val TableKey = "metadata.iceberg.table"
  val GlueSkipArchiveKey = "metadata.iceberg.glue.skip-archive"
  val SkipUpdateStatsKey = "metadata.iceberg.hive-skip-update-stats"
  val MetadataLocation = "metadata_location"
  val PreviousMetadataLocation = "previous_metadata_location"
}
