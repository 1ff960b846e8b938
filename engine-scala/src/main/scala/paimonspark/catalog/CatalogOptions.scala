package paimonspark.catalog

import java.time.Duration

import paimonspark.InvalidOptionException
import paimonspark.table.options.DurationText

/** A catalog's options read by Paimon's names, each malformed one refused naming `spark.sql.catalog.<name>.<key>`. */
final case class CatalogOptions(catalog: String, options: Map[String, String]) {
  def option(key: String): String = s"spark.sql.catalog.$catalog.$key"

  def flag(key: String): Option[Boolean] = options.get(key).map(_.trim.toLowerCase).map {
    case "true" => true
    case "false" => false
    case other => throw new InvalidOptionException(option(key), s"${option(key)} must be true or false, not '$other'")
  }

  def duration(key: String, default: Duration): Duration = options.get(key).fold(default)(DurationText.parse(option(key), _))

  def positive(key: String, default: Int): Int = options.get(key).map(v => v.trim.toIntOption.filter(_ > 0).getOrElse(
    throw new InvalidOptionException(option(key), s"${option(key)} must be a positive number, not '$v'"))).getOrElse(default)

  /** A value that must be given; `what` says what it is, for the error. */
  def required(key: String, kind: String, what: String): String = options.get(key).map(_.trim).filter(_.nonEmpty)
    .getOrElse(throw new InvalidOptionException(option(key), s"catalog $catalog: metastore=$kind needs ${option(key)} ($what)"))
}

/** The options Paimon's catalogs share (`CatalogOptions`). */
object CatalogOptions {
  val Metastore = "metastore"
  val Uri = "uri"
  val Warehouse = "warehouse"
  val SyncAllProperties = "sync-all-properties"
  val ClientPoolSize = "client-pool-size"
  val LockEnabled = "lock.enabled"
  val LockAcquireTimeout = "lock-acquire-timeout"
  val LockCheckMaxSleep = "lock-check-max-sleep"
}
