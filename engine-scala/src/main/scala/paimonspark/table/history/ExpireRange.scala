package paimonspark.table.history

import paimonspark.table.ExpireConfig

/**
 * Which snapshots an expiry removes, as Paimon decides it: never the newest `retainMin`; everything
 * beyond the newest `retainMax`; in between, those older than `olderThanMillis`, stopping at the
 * first younger one, at the first snapshot a consumer still needs, and after `maxDeletes`. A pure
 * function of ids and commit times.
 */
object ExpireRange {
  /** The first id to keep: snapshots in [earliest, result) expire. */
  def endExclusive(earliest: Long, latest: Long, consumerNext: Option[Long], config: ExpireConfig,
      timeOf: Long => Option[Long]): Long = {
    if (latest - earliest + 1 <= config.retainMin) return earliest
    val forced = math.max(latest - config.retainMax + 1, earliest)
    var end = latest - config.retainMin + 1
    consumerNext.foreach(c => end = math.min(end, c))
    end = math.min(end, earliest + config.maxDeletes)
    // Snapshots past the retainMax newest go whatever their age; the others only while old enough.
    var id = forced
    while (id < end) {
      if (timeOf(id).exists(_ >= config.olderThanMillis)) return math.max(id, earliest)
      id += 1
    }
    math.max(end, earliest)
  }
}
