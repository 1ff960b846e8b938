package paimonspark.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.api.{Database => HiveDatabase, FieldSchema, SerDeInfo, StorageDescriptor, Table}

import paimonspark.catalog.TableProperties
import paimonspark.format.DataField
import paimonspark.format.metadata.TableSchema
import paimonspark.table.TableOptions

/**
 * The metastore's records of Paimon databases and tables, exactly as Paimon's `HiveCatalog` writes
 * them: the format and SerDe class names other engines recognise Paimon tables by, `table_type` and
 * `storage_handler`, Hive column types, the table's options as parameters, and where its files are.
 */
object HmsTables {
  val InputFormat = "org.apache.paimon.hive.mapred.PaimonInputFormat"
  val OutputFormat = "org.apache.paimon.hive.mapred.PaimonOutputFormat"
  val SerDe = "org.apache.paimon.hive.PaimonSerDe"
  val StorageHandler = "org.apache.paimon.hive.PaimonStorageHandler"
  val TableTypeParameter = "table_type"
  val PaimonTableType = "PAIMON"
  val StorageHandlerParameter = "storage_handler"
  val External = "EXTERNAL"
  val Comment = "comment"
  /** With `location-in-properties`, where locations go instead of the storage descriptor. */
  val LocationParameter = "paimon_location"
  val ManagedTable = "MANAGED_TABLE"
  val ExternalTable = "EXTERNAL_TABLE"
  private val HivePrefix = "hive."
  /** Options Paimon copies even without `sync-all-properties`, for other products to find. */
  private val AlwaysSynced = Seq("partition.expiration-time", "data-file.path-directory")

  /** Paimon's test: the input and output format class names, nothing else. */
  def isPaimon(table: Table): Boolean =
    table.getSd != null && table.getSd.getInputFormat == InputFormat && table.getSd.getOutputFormat == OutputFormat

  def isExternal(table: Table): Boolean = table.getTableType == ExternalTable

  def location(table: Table, settings: MetastoreSettings): Option[String] =
    if (settings.locationInProperties) Option(table.getParameters.get(LocationParameter))
    else Option(table.getSd).flatMap(sd => Option(sd.getLocation))

  def location(db: HiveDatabase, settings: MetastoreSettings): Option[String] =
    if (settings.locationInProperties) Option(db.getParameters).flatMap(p => Option(p.get(LocationParameter)))
    else Option(db.getLocationUri)

  /** A database record: `comment`, `owner` and `location` in their fields, other properties as parameters. */
  def database(name: String, location: String, properties: Map[String, String], settings: MetastoreSettings): HiveDatabase = {
    val db = new HiveDatabase()
    db.setName(name)
    properties.get(paimonspark.catalog.Database.Comment).foreach(db.setDescription)
    properties.get(paimonspark.catalog.Database.Owner).foreach(db.setOwnerName)
    val parameters = properties -- Seq(paimonspark.catalog.Database.Comment, paimonspark.catalog.Database.Owner,
      paimonspark.catalog.Database.Location)
    if (settings.locationInProperties) db.setParameters((parameters + (LocationParameter -> location)).asJava)
    else {
      db.setLocationUri(location)
      db.setParameters(parameters.asJava)
    }
    db
  }

  /** A new table's record (`HiveCatalog.createHiveTable`). */
  def newTable(db: String, name: String, schema: TableSchema, location: String, external: Boolean,
      settings: MetastoreSettings, owner: String): Table = {
    val now = (System.currentTimeMillis() / 1000).toInt
    val parameters = new java.util.HashMap[String, String]()
    parameters.putAll(synced(schema, settings).asJava)
    parameters.put(TableTypeParameter, PaimonTableType)
    parameters.put(StorageHandlerParameter, StorageHandler)
    if (external) parameters.put(External, "TRUE")
    val table = new Table(name, db, owner, now, now, Int.MaxValue, null, java.util.Collections.emptyList(), parameters,
      null, null, if (external) ExternalTable else ManagedTable)
    describe(table, schema, location, settings)
    table
  }

  /** An existing record brought up to `schema` (`HiveCatalog.alterTableToHms`); `removed` options are dropped. */
  def altered(table: Table, schema: TableSchema, removed: Set[String], settings: MetastoreSettings): Table = {
    val copy = table.deepCopy()
    copy.getParameters.putAll(synced(schema, settings).asJava)
    removed.foreach(copy.getParameters.remove)
    describe(copy, schema, location(table, settings).orNull, settings)
    copy
  }

  /** Whether HMS holds the table's partitions: `metastore.partitioned-table` on a partitioned table. */
  def metastorePartitioned(schema: TableSchema): Boolean =
    schema.partitionKeys.nonEmpty && TableOptions(schema.options).raw.get("metastore.partitioned-table")
      .exists(_.trim.equalsIgnoreCase("true"))

  private def synced(schema: TableSchema, settings: MetastoreSettings): Map[String, String] =
    if (settings.syncAllProperties) TableProperties.of(schema)
    else {
      schema.options.collect { case (k, v) if k.startsWith(HivePrefix) => k.stripPrefix(HivePrefix) -> v } ++
        schema.options.filter { case (k, _) => AlwaysSynced.contains(k) }
    }

  /** Columns, formats, SerDe, partition keys, comment and location (`HiveCatalog.updateHmsTable`). */
  private def describe(table: Table, schema: TableSchema, location: String, settings: MetastoreSettings): Unit = {
    val sd = Option(table.getSd).getOrElse(new StorageDescriptor())
    sd.setInputFormat(InputFormat)
    sd.setOutputFormat(OutputFormat)
    val serde = Option(sd.getSerdeInfo).getOrElse(new SerDeInfo())
    serde.setParameters(new java.util.HashMap[String, String]())
    serde.setSerializationLib(SerDe)
    sd.setSerdeInfo(serde)
    if (metastorePartitioned(schema)) {
      table.setPartitionKeys(schema.partitionFields.map(column).asJava)
      sd.setCols(schema.nonPartitionFields.map(column).asJava)
    } else {
      table.setPartitionKeys(java.util.Collections.emptyList())
      sd.setCols(schema.fields.map(column).asJava)
    }
    table.setSd(sd)
    schema.comment.foreach(table.getParameters.put(Comment, _))
    if (settings.locationInProperties) table.getParameters.put(LocationParameter, location)
    else sd.setLocation(location)
  }

  /** A Hive column, as Paimon 1.4 writes it: name, Hive type, the column's description. */
  private def column(field: DataField): FieldSchema =
    new FieldSchema(field.name, HiveTypes.of(field.dataType), field.description.orNull)
}
