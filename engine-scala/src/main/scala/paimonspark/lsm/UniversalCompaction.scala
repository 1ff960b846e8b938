package paimonspark.lsm

/**
 * Paimon's universal compaction picker, a pure function of a bucket's sorted runs (newest first):
 *  1. size amplification: when the runs above the oldest are more than `maxSizeAmpPercent` of it,
 *     everything is merged into the top level;
 *  2. size ratio: the newest runs are merged while the next run is not much larger than them
 *     together (`sizeRatioPercent`);
 *  3. run count: past `trigger` runs, the newest surplus runs are merged in any case.
 * Nothing is picked below `trigger` runs. Output never goes to level 0.
 */
final case class UniversalCompaction(maxSizeAmpPercent: Int, sizeRatioPercent: Int, trigger: Int, numLevels: Int) {
  private val maxLevel = numLevels - 1

  def pick(runs: Seq[SortedRun]): Option[CompactUnit] =
    if (runs.size < trigger) None
    else pickForSizeAmplification(runs)
      .orElse(pickForSizeRatio(runs, 1, force = false))
      .orElse(if (runs.size > trigger) pickForSizeRatio(runs, runs.size - trigger + 1, force = true) else None)

  /**
   * The newest runs down to the last one at level 0, merged into a level above 0 (Paimon's
   * `ForceUpLevel0Compaction`): what a `lookup` changelog producer runs when nothing else is picked,
   * so that each commit's changes reach the changelog.
   */
  def forcePickLevel0(runs: Seq[SortedRun]): Option[CompactUnit] = {
    val level0 = runs.takeWhile(_.level == 0).size
    if (level0 == 0) None else pickForSizeRatio(runs, level0, force = true)
  }

  /**
   * What a table that looks keys up (a `lookup` changelog producer, deletion vectors) compacts: the
   * usual pick, else level 0 forced up. `gentleInterval` (Paimon's `lookup-compact` = `gentle`)
   * forces it only once that many runs wait at level 0. Paimon counts its writer's compaction
   * attempts instead; a writer here lives for one write, so the bucket's level-0 runs, one per
   * write that touched it since, stand for that count.
   */
  def pickForLookup(runs: Seq[SortedRun], gentleInterval: Option[Int]): Option[CompactUnit] =
    pick(runs).orElse {
      if (gentleInterval.exists(runs.count(_.level == 0) < _)) None else forcePickLevel0(runs)
    }

  /**
   * Everything into the top level, unless the bucket already is one run there without retractions
   * and `rewriteAll` (`compaction.force-rewrite-all-files`) does not ask for its files anyway.
   */
  def full(runs: Seq[SortedRun], rewriteAll: Boolean = false): Option[CompactUnit] = runs match {
    case Seq() => None
    case Seq(only) if !rewriteAll && only.level == maxLevel && only.files.forall(_.deleteRowCount.contains(0L)) => None
    case _ => Some(unit(maxLevel, runs))
  }

  private def pickForSizeAmplification(runs: Seq[SortedRun]): Option[CompactUnit] = {
    val newer = runs.init.map(_.totalSize).sum
    val oldest = runs.last.totalSize
    if (newer * 100 > maxSizeAmpPercent.toLong * oldest) Some(unit(maxLevel, runs)) else None
  }

  private def pickForSizeRatio(runs: Seq[SortedRun], first: Int, force: Boolean): Option[CompactUnit] = {
    var count = first
    var size = runs.take(first).map(_.totalSize).sum.toDouble
    while (count < runs.size && size * (100.0 + sizeRatioPercent) / 100.0 >= runs(count).totalSize) {
      size += runs(count).totalSize
      count += 1
    }
    if (force || count > 1) Some(createUnit(runs, count)) else None
  }

  /** The first `count` runs, merged into the level just below the next run (never level 0). */
  private def createUnit(runs: Seq[SortedRun], count: Int): CompactUnit = {
    var taken = count
    var output = if (taken == runs.size) maxLevel else math.max(0, runs(taken).level - 1)
    if (output == 0) {
      // Take further runs until one above level 0 gives the output level.
      var found = false
      while (!found && taken < runs.size) {
        val next = runs(taken)
        taken += 1
        if (next.level != 0) { output = next.level; found = true }
      }
    }
    if (taken == runs.size) output = maxLevel
    unit(output, runs.take(taken))
  }

  private def unit(level: Int, runs: Seq[SortedRun]): CompactUnit = CompactUnit(level, runs.flatMap(_.files))
}
