package paimonspark.catalog.jdbc

import java.sql.{Connection, Driver, SQLException}
import java.util.{Properties, ServiceLoader}
import java.util.concurrent.{ArrayBlockingQueue, ConcurrentHashMap, Semaphore}

import scala.jdk.CollectionConverters._

import paimonspark.MetastoreException

/**
 * Up to `client-pool-size` connections to one catalog database, opened when first needed and shared by every
 * catalog and table of the JVM with the same settings, as Paimon's `JdbcClientPool`. The driver is found among
 * the `java.sql.Driver`s the classpath declares (the jars `spark.jars` adds among them), by the URL it accepts.
 * Failures become [[MetastoreException]]s naming the database, never its password.
 */
final class JdbcConnections private (settings: JdbcSettings) {
  private val idle = new ArrayBlockingQueue[Connection](settings.poolSize)
  private val permits = new Semaphore(settings.poolSize)

  /** Runs `call` on a connection; `what` says what was asked, for the error. */
  def run[T](what: String)(call: Connection => T): T = {
    permits.acquire()
    try {
      val connection = Option(idle.poll()).filter(c => !c.isClosed && c.isValid(5)).getOrElse(connect())
      val result = try call(connection) catch {
        case e: SQLException => connection.close(); throw failure(what, e)
      }
      idle.offer(connection)
      result
    } finally permits.release()
  }

  private def connect(): Connection = {
    val loader = Option(Thread.currentThread.getContextClassLoader).getOrElse(getClass.getClassLoader)
    val driver = ServiceLoader.load(classOf[Driver], loader).asScala.find(d => util.Try(d.acceptsURL(settings.uri)).getOrElse(false))
      .getOrElse(throw new MetastoreException(settings.shownUri, s"catalog ${settings.catalog}: no JDBC driver on the " +
        s"classpath takes ${settings.shownUri}; add the database's driver jar (for SQLite org.xerial:sqlite-jdbc, for " +
        "PostgreSQL org.postgresql:postgresql: configure_spark_with_paimon adds both for metastore=jdbc, and " +
        "`paimon-spark fetch-jars jdbc` lists them for spark-submit --jars)"))
    val properties = new Properties()
    settings.driverProperties.foreach { case (k, v) => properties.setProperty(k, v) }
    try Option(driver.connect(settings.uri, properties)).getOrElse(throw new SQLException("the driver refused the URL"))
    catch {
      case e: SQLException => throw new MetastoreException(settings.shownUri, s"catalog ${settings.catalog}: cannot " +
        s"connect to the catalog database ${settings.shownUri}: ${e.getMessage}", e)
    }
  }

  private def failure(what: String, e: SQLException) = new MetastoreException(settings.shownUri,
    s"catalog ${settings.catalog}: the catalog database ${settings.shownUri} failed to $what: ${e.getMessage}", e)
}

object JdbcConnections {
  private val pools = new ConcurrentHashMap[JdbcSettings, JdbcConnections]()

  def of(settings: JdbcSettings): JdbcConnections = pools.computeIfAbsent(settings, new JdbcConnections(_))
}
