package paimonspark.catalog.hive

import java.util.concurrent.{ArrayBlockingQueue, ConcurrentHashMap}

import org.apache.hadoop.hive.metastore.{HiveMetaHookLoader, IMetaStoreClient, RetryingMetaStoreClient}
import org.apache.thrift.TApplicationException

import paimonspark.{MetastoreException, PaimonError}

/**
 * Up to `client-pool-size` connections to one metastore, opened when first needed and shared by
 * every catalog and table of the JVM with the same settings (Paimon's `CachedClientPool`). Failures
 * become [[MetastoreException]]s that name the metastore.
 */
final class MetastoreClients private (settings: MetastoreSettings) {
  private val idle = new ArrayBlockingQueue[IMetaStoreClient](settings.clientPoolSize)
  private val permits = new java.util.concurrent.Semaphore(settings.clientPoolSize)

  /** Runs `call` on a connection; `what` says what was asked, for the error. */
  def run[T](what: String)(call: IMetaStoreClient => T): T = {
    permits.acquire()
    try {
      val client = Option(idle.poll()).getOrElse(connect())
      val result = try call(client) catch {
        case e: PaimonError => idle.offer(client); throw e
        case e: Exception => client.close(); throw failure(what, e)
      }
      idle.offer(client)
      result
    } finally permits.release()
  }

  private def connect(): IMetaStoreClient = try {
    RetryingMetaStoreClient.getProxy(settings.hiveConf, NoHooks, settings.clientClass)
  } catch {
    case e: Exception => throw new MetastoreException(settings.uri, s"catalog ${settings.catalog}: cannot connect to " +
      s"the metastore at ${settings.uri}: ${MetastoreClients.rootMessage(e)}", e)
  }

  private def failure(what: String, e: Exception): Exception = e match {
    case _ if MetastoreClients.causes(e).exists(c => c.isInstanceOf[TApplicationException] &&
        String.valueOf(c.getMessage).contains("Invalid method name")) =>
      new MetastoreException(settings.uri, s"catalog ${settings.catalog}: the metastore at ${settings.uri} does not " +
        s"answer the Hive 2.3 client's calls ($what: ${MetastoreClients.rootMessage(e)}); Hive 4 servers dropped them. " +
        "Use a Hive 2.x or 3.x metastore", e)
    case _ => new MetastoreException(settings.uri, s"catalog ${settings.catalog}: the metastore at ${settings.uri} " +
      s"failed to $what: ${e.getClass.getSimpleName}: ${MetastoreClients.rootMessage(e)}", e)
  }

  private object NoHooks extends HiveMetaHookLoader {
    override def getHook(table: org.apache.hadoop.hive.metastore.api.Table) = null
  }
}

object MetastoreClients {
  private val pools = new ConcurrentHashMap[MetastoreSettings, MetastoreClients]()

  def of(settings: MetastoreSettings): MetastoreClients = pools.computeIfAbsent(settings, new MetastoreClients(_))

  def causes(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq

  /** The deepest message, first line only: Hive puts whole stack traces into some. */
  def rootMessage(e: Throwable): String =
    causes(e).reverseIterator.map(_.getMessage).find(_ != null).getOrElse(e.toString).linesIterator.next()
}
