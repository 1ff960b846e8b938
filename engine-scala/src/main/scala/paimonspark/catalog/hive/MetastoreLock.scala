package paimonspark.catalog.hive

import java.net.InetAddress

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.api.{LockComponent, LockLevel, LockRequest, LockState, LockType}

import paimonspark.CommitConflictException

/**
 * The metastore's exclusive table lock, requested exactly as Paimon's `HiveCatalogLock` requests it
 * (one EXCLUSIVE TABLE component, no operation type, the JVM's user and host), so that our writers
 * and Paimon's (Flink's) on the same table exclude each other. A waiting request is polled with a
 * sleep doubling from 50 ms up to `lock-check-max-sleep`, and given up after `lock-acquire-timeout`.
 * A holder that dies leaves its lock until the metastore times it out (`hive.txn.timeout`).
 */
final class MetastoreLock(settings: MetastoreSettings, db: String, table: String) {
  private def clients = MetastoreClients.of(settings)

  def holding[T](body: => T): T = {
    val id = acquire()
    try body finally clients.run(s"unlock table $db.$table")(_.unlock(id))
  }

  private def acquire(): Long = {
    val component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db)
    component.setTablename(table)
    component.unsetOperationType()
    val request = new LockRequest(List(component).asJava, System.getProperty("user.name"),
      InetAddress.getLocalHost.getHostName)
    var response = clients.run(s"lock table $db.$table")(_.lock(request))
    val start = System.currentTimeMillis()
    var sleep = 50L
    while (response.getState == LockState.WAITING && System.currentTimeMillis() - start <= settings.lockAcquireTimeout.toMillis) {
      sleep = math.min(sleep * 2, settings.lockCheckMaxSleep.toMillis)
      Thread.sleep(sleep)
      val id = response.getLockid
      response = clients.run(s"check the lock on table $db.$table")(_.checkLock(id))
    }
    if (response.getState != LockState.ACQUIRED) {
      val id = response.getLockid
      if (response.getState == LockState.WAITING) clients.run(s"unlock table $db.$table")(_.unlock(id))
      throw new CommitConflictException(s"$db.$table", s"table $db.$table: the metastore lock at ${settings.uri} was not " +
        s"acquired in ${System.currentTimeMillis() - start} ms (lock-acquire-timeout=${settings.lockAcquireTimeout.toMillis} ms, " +
        s"state ${response.getState}); another writer holds it; nothing was committed")
    }
    response.getLockid
  }
}
