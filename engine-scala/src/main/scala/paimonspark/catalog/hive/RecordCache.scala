package paimonspark.catalog.hive

import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.hive.metastore.api.Table

/**
 * Where the catalog's Paimon tables are, as the metastore last said, so that a statement resolves a
 * table through the metastore once and through its files afterwards (Paimon's `cache-enabled`, with
 * `cache.expire-after-access` and `cache.expire-after-write`). Only the record is kept, never the
 * schema: every load reads the table's schema files. A record found stale (no table at its location)
 * is looked up again.
 */
final class RecordCache(settings: MetastoreSettings) {
  private final case class Entry(record: Table, written: Long, accessed: Long)
  private val entries = new ConcurrentHashMap[(String, String), Entry]()

  /** The cached Paimon record of `db.table`, else `lookup`'s (kept when it is a Paimon table). */
  def get(db: String, table: String)(lookup: => Option[Table]): Option[Table] = {
    val now = System.currentTimeMillis()
    val key = (db, table)
    Option(entries.get(key)).filter(e => settings.cacheEnabled &&
      now - e.accessed <= settings.cacheExpireAfterAccess.toMillis &&
      now - e.written <= settings.cacheExpireAfterWrite.toMillis) match {
      case Some(e) =>
        entries.put(key, e.copy(accessed = now))
        Some(e.record)
      case None =>
        entries.remove(key)
        val found = lookup
        found.filter(r => settings.cacheEnabled && HmsTables.isPaimon(r)).foreach(r => entries.put(key, Entry(r, now, now)))
        found
    }
  }

  def invalidate(db: String, table: String): Unit = entries.remove((db, table))
}
