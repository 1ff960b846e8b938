package paimonspark.catalog.jdbc

import java.time.Duration

import paimonspark.InvalidOptionException
import paimonspark.catalog.CatalogOptions
import paimonspark.catalog.CatalogOptions._

/**
 * A JDBC catalog's options, by Paimon's names (`JdbcCatalogOptions`, `CatalogOptions`): the catalog
 * database's JDBC `uri`, the `warehouse` its tables' files are under, `catalog-key` (the rows of this
 * catalog among others in one database), `jdbc.*` properties for the driver (`jdbc.user`, `jdbc.password`),
 * and the distributed lock's settings. Checked when the catalog starts; the password is never shown, in
 * errors or in `toString`. Serializable: the hooks tables carry reach the database from the settings alone.
 */
final case class JdbcSettings(catalog: String, options: Map[String, String]) {
  import JdbcSettings._

  private val read = CatalogOptions(catalog, options)

  val uri: String = read.required(Uri, "jdbc", "the catalog database's JDBC URL, jdbc:sqlite:/path or jdbc:postgresql://...")
  /** The database kind, as Paimon picks the lock's dialect: `sqlite`, `postgresql`, `mysql`. */
  val protocol: String = """jdbc:([^:]+):.*""".r.findFirstMatchIn(uri).map(_.group(1).toLowerCase).getOrElse(
    throw new InvalidOptionException(read.option(Uri), s"catalog $catalog: ${read.option(Uri)} '$uri' is not a " +
      "JDBC URL (jdbc:<kind>:...)"))
  val warehouse: String = read.required(Warehouse, "jdbc", "where the tables' files are")
  val catalogKey: String = options.getOrElse(CatalogKey, "jdbc")
  /** What the driver is given: every `jdbc.*` option, the prefix taken off. */
  val driverProperties: Map[String, String] =
    options.collect { case (k, v) if k.startsWith(DriverPrefix) => k.stripPrefix(DriverPrefix) -> v }
  val poolSize: Int = read.positive(ClientPoolSize, 2)
  val syncAllProperties: Boolean = read.flag(SyncAllProperties).getOrElse(true)
  /** None leaves it to the warehouse: on for object stores, as in Paimon. */
  val lockEnabled: Option[Boolean] = read.flag(LockEnabled)
  val lockAcquireTimeout: Duration = read.duration(LockAcquireTimeout, Duration.ofMinutes(8))
  val lockCheckMaxSleep: Duration = read.duration(LockCheckMaxSleep, Duration.ofSeconds(8))
  val lockKeyMaxLength: Int = read.positive(LockKeyMaxLength, 255)

  def option(key: String): String = read.option(key)

  /** The URL as errors show it: a password given in it masked. */
  val shownUri: String = uri.replaceAll("(?i)(password=)[^&;]*", "$1***")

  override def toString: String = s"JdbcSettings($catalog, $shownUri, $warehouse, $catalogKey)"
}

object JdbcSettings {
  val CatalogKey = "catalog-key"
  val DriverPrefix = "jdbc."
  val LockKeyMaxLength = "lock-key-max-length"
}
