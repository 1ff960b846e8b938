package paimonspark.catalog.hive

import java.time.Duration

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.conf.HiveConf

import paimonspark.InvalidOptionException
import paimonspark.catalog.CatalogOptions

/**
 * A metastore catalog's options, by Paimon's names (`CatalogOptions`, `HiveCatalogOptions`), checked
 * when the catalog starts. Serializable, so the hooks that tables carry can reach the metastore from
 * the settings alone.
 */
final case class MetastoreSettings(catalog: String, options: Map[String, String]) {
  import MetastoreSettings._

  private val read = CatalogOptions(catalog, options)
  private def option(key: String): String = read.option(key)
  private def flag(key: String): Option[Boolean] = read.flag(key)
  private def duration(key: String, default: Duration): Duration = read.duration(key, default)

  /** The Hive configuration Paimon's `HiveCatalog.createHiveConf` builds: hive-site.xml, then every catalog option. */
  @transient lazy val hiveConf: HiveConf = {
    val conf = new HiveConf(classOf[HiveConf])
    options.get(HiveConfDir).foreach { dir =>
      val site = new java.io.File(dir, "hive-site.xml")
      if (!site.isFile) {
        throw new InvalidOptionException(option(HiveConfDir), s"catalog $catalog: ${option(HiveConfDir)} is '$dir', " +
          "which holds no hive-site.xml")
      }
      conf.addResource(new Path(site.toURI))
    }
    options.foreach { case (k, v) => conf.set(k, v) }
    options.get(Uri).foreach(conf.setVar(HiveConf.ConfVars.METASTOREURIS, _))
    conf
  }

  /** The metastore as errors name it. */
  val uri: String = Option(hiveConf.getVar(HiveConf.ConfVars.METASTOREURIS)).filter(_.nonEmpty).getOrElse(
    throw new InvalidOptionException(option(Uri), s"catalog $catalog: metastore=hive needs ${option(Uri)} " +
      "(thrift://host:port), or hive.metastore.uris in the hive-site.xml of hive-conf-dir"))

  /** Where new databases go: the catalog's warehouse, else the metastore's. */
  val warehouse: String = options.getOrElse(Warehouse, hiveConf.getVar(HiveConf.ConfVars.METASTOREWAREHOUSE))

  /** `table.type=external` makes every new table external, as in Paimon. */
  val externalTables: Boolean = options.get(TableType).map(_.trim.toLowerCase) match {
    case None | Some("managed") => false
    case Some("external") => true
    case Some(other) => throw new InvalidOptionException(option(TableType),
      s"${option(TableType)} must be managed or external, not '$other'")
  }

  val locationInProperties: Boolean = flag(LocationInProperties).getOrElse(false)
  val syncAllProperties: Boolean = flag(SyncAllProperties).getOrElse(true)
  /** None leaves it to the warehouse: on for object stores, as in Paimon. */
  val lockEnabled: Option[Boolean] = flag(LockEnabled)
  val lockAcquireTimeout: Duration = duration(LockAcquireTimeout, Duration.ofMinutes(8))
  val lockCheckMaxSleep: Duration = duration(LockCheckMaxSleep, Duration.ofSeconds(8))
  val cacheEnabled: Boolean = flag(CacheEnabled).getOrElse(true)
  val cacheExpireAfterAccess: Duration = duration(CacheExpireAfterAccess, Duration.ofMinutes(10))
  val cacheExpireAfterWrite: Duration = duration(CacheExpireAfterWrite, Duration.ofMinutes(30))
  val clientClass: String = options.getOrElse(ClientClass, "org.apache.hadoop.hive.metastore.HiveMetaStoreClient")

  val clientPoolSize: Int = read.positive(ClientPoolSize, 2)
}

object MetastoreSettings {
  val Metastore: String = CatalogOptions.Metastore
  val Uri: String = CatalogOptions.Uri
  val Warehouse: String = CatalogOptions.Warehouse
  val HiveConfDir = "hive-conf-dir"
  val TableType = "table.type"
  val LocationInProperties = "location-in-properties"
  val SyncAllProperties: String = CatalogOptions.SyncAllProperties
  val ClientPoolSize: String = CatalogOptions.ClientPoolSize
  val LockEnabled: String = CatalogOptions.LockEnabled
  val LockAcquireTimeout: String = CatalogOptions.LockAcquireTimeout
  val LockCheckMaxSleep: String = CatalogOptions.LockCheckMaxSleep
  val ClientClass = "metastore.client.class"
  val CacheEnabled = "cache-enabled"
  val CacheExpireAfterAccess = "cache.expire-after-access"
  val CacheExpireAfterWrite = "cache.expire-after-write"
}
