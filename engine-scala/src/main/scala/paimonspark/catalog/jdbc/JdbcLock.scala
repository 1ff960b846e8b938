package paimonspark.catalog.jdbc

import java.sql.SQLException

import paimonspark.{CommitConflictException, UnsupportedFeatureException}
import paimonspark.catalog.CatalogOptions

/**
 * Paimon's distributed lock in the catalog database (`JdbcCatalogLock`): a row of `paimon_distributed_locks`
 * per held lock, `<catalog-key>.<db>.<table>`, inserted to take it and deleted to give it back, so that our
 * writers and Paimon's (Java's, Flink's) on one table exclude each other. A row older than its expiry (the
 * `lock-acquire-timeout` in seconds, left by a holder that died) is removed before each try, in the SQL of
 * the database's dialect. Tries are spaced by a sleep doubling from 100 ms up to `lock-check-max-sleep`, and
 * given up after `lock-acquire-timeout`.
 */
final class JdbcLock(settings: JdbcSettings, db: String, table: String) {
  import JdbcRecords.Locks

  private val id = s"${settings.catalogKey}.$db.$table"
  private val expired = settings.protocol match {
    case "sqlite" => s"DELETE FROM $Locks WHERE  strftime('%s', 'now') - strftime('%s', acquired_at) > expire_time_seconds and lock_id = ?"
    case "mysql" => s"DELETE FROM $Locks WHERE TIMESTAMPDIFF(SECOND, acquired_at, NOW()) >expire_time_seconds and lock_id = ?"
    case "postgresql" => s"DELETE FROM $Locks WHERE EXTRACT(EPOCH FROM AGE(NOW(), acquired_at)) >expire_time_seconds and lock_id = ?"
    case other => throw new UnsupportedFeatureException(s"catalog ${settings.catalog}: the lock of a JDBC catalog on " +
      s"'$other' (${settings.option(CatalogOptions.LockEnabled)}): Paimon's lock knows sqlite, mysql and postgresql",
      CatalogOptions.LockEnabled)
  }

  def holding[T](body: => T): T = {
    acquire()
    try body
    finally JdbcConnections.of(settings).run(s"release the lock on $db.$table") { c =>
      val s = c.prepareStatement(s"DELETE FROM $Locks WHERE lock_id = ?")
      try { s.setString(1, id); s.executeUpdate() } finally s.close()
    }
  }

  private def tryAcquire(): Boolean = JdbcConnections.of(settings).run(s"take the lock on $db.$table") { c =>
    val cleanup = c.prepareStatement(expired)
    try { cleanup.setString(1, id); cleanup.executeUpdate() } finally cleanup.close()
    val insert = c.prepareStatement(s"INSERT INTO $Locks (lock_id,expire_time_seconds) VALUES (?,?)")
    // A row already there is another holder's: Paimon takes any failed insert as "not acquired".
    try { insert.setString(1, id); insert.setLong(2, settings.lockAcquireTimeout.toMillis / 1000); insert.executeUpdate() > 0 }
    catch { case _: SQLException => false }
    finally insert.close()
  }

  private def acquire(): Unit = {
    val start = System.currentTimeMillis()
    var sleep = 50L
    var held = tryAcquire()
    while (!held && System.currentTimeMillis() - start <= settings.lockAcquireTimeout.toMillis) {
      sleep = math.min(sleep * 2, settings.lockCheckMaxSleep.toMillis)
      Thread.sleep(sleep)
      held = tryAcquire()
    }
    if (!held) {
      throw new CommitConflictException(s"$db.$table", s"table $db.$table: the lock $id in the catalog database " +
        s"${settings.shownUri} was not acquired in ${System.currentTimeMillis() - start} ms (lock-acquire-timeout=" +
        s"${settings.lockAcquireTimeout.toMillis} ms); another writer holds it; nothing was committed")
    }
  }
}
