package paimonspark.table.write

import paimonspark.format.metadata.Snapshot
import paimonspark.table.FileStoreTable
import paimonspark.table.history.{ChangelogExpiry, SnapshotExpiry, TagAutoCreation, TagDeletion}

/**
 * What runs after every commit unless `write-only`, in Paimon's order: automatic tags, expiry of
 * tags past their retention (unless `tag.time-expire-enabled` is false), partition expiry
 * (`partition.expiration-time`), consumers idle longer than `consumer.expiration-time`, snapshot
 * expiry, then the expiry of long-lived changelogs. The commit is published already, so a failure
 * here is logged and left for the next commit or the procedures. `endOfInput`: the commit ends a
 * batch write. Expiry counts from the `committed` snapshot rather than reading the latest again: a
 * later one committed meanwhile only makes it keep more.
 */
object CommitMaintenance {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  def run(table: FileStoreTable, committed: Snapshot, endOfInput: Boolean): Unit = if (!table.options.writeOnly) {
    try {
      TagAutoCreation.run(table)
      if (table.options.tagTimeExpireEnabled) TagDeletion.expireByTime(table)
      PartitionExpiry.afterCommit(table, endOfInput)
      table.options.consumerExpiration.foreach(d => table.consumerManager.expireIdleSince(System.currentTimeMillis() - d.toMillis))
      val now = System.currentTimeMillis()
      new SnapshotExpiry(table).expire(table.options.expireConfig(now), Some(committed.id))
      if (table.options.changelogDecoupled) new ChangelogExpiry(table).expire(table.options.changelogExpireConfig(now))
    } catch {
      case e: Exception => log.warn(s"Maintenance after a commit to ${table.name} failed; it runs again after the next one", e)
    }
  }
}
