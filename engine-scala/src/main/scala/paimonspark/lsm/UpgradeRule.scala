package paimonspark.lsm

import paimonspark.format.metadata.DataFileMeta

/**
 * What a compaction does with a file it moves up alone (one that overlaps no other file of its unit
 * and is not rewritten for its retractions): Paimon's `ChangelogMergeTreeRewriter.UpgradeStrategy`.
 * `read`: the file is merged as a rewrite merges it, for its changelog and, with deletion vectors, to
 * mark the versions it replaces above; `rewrite`: it is written again at the output level, rather
 * than moved there as it is (same name, sequence numbers and statistics, a new level).
 */
sealed abstract class UpgradeStrategy(val read: Boolean, val rewrite: Boolean)

object UpgradeStrategy {
  case object NoChangelogNoRewrite extends UpgradeStrategy(read = false, rewrite = false)
  case object ChangelogNoRewrite extends UpgradeStrategy(read = true, rewrite = false)
  case object ChangelogWithRewrite extends UpgradeStrategy(read = true, rewrite = true)
}

/** How a table's compactions upgrade files, after the compact rewriter Paimon 1.4.2 gives the table. */
sealed trait UpgradeRule {
  def of(outputLevel: Int, file: DataFileMeta): UpgradeStrategy
}

object UpgradeRule {
  import UpgradeStrategy._

  /** `MergeTreeCompactRewriter`, no changelog and no lookups: a file only moves. */
  case object Plain extends UpgradeRule {
    def of(outputLevel: Int, file: DataFileMeta): UpgradeStrategy = NoChangelogNoRewrite
  }

  /**
   * `FullChangelogMergeTreeCompactRewriter` (`changelog-producer` = `full-compaction`): into the top
   * level a file is read for the changelog and moved; below it, as `below` decides (Paimon: moved).
   */
  final case class FullChangelog(maxLevel: Int, below: UpgradeRule = Plain) extends UpgradeRule {
    def of(outputLevel: Int, file: DataFileMeta): UpgradeStrategy =
      if (outputLevel == maxLevel) ChangelogNoRewrite else below.of(outputLevel, file)
  }

  /**
   * `LookupMergeTreeCompactRewriter` (a `lookup` changelog, deletion vectors, `force-lookup`,
   * `first-row`): a level-0 file is read, and rewritten unless moving it as it is reads the same.
   * Readers of such a table merge a key's level-0 versions with the lowest version above 0 alone, so
   * below the top level only a deduplicate table without `sequence.field`, whose newest version is
   * the merged one, may keep the file as written. A file of another format than its new level's
   * (`file.format.per.level`) is rewritten, and with deletion vectors one holding retractions (or not
   * saying how many), which must be dropped. (Paimon 2.0 adds a rewrite for vector indexes, an option
   * 1.4.2 does not have.)
   */
  final case class Lookup(maxLevel: Int, levelFormat: Int => String, vectors: Boolean,
      deduplicateWithoutSequence: Boolean) extends UpgradeRule {
    def of(outputLevel: Int, file: DataFileMeta): UpgradeStrategy =
      if (file.level != 0) NoChangelogNoRewrite
      else if (levelFormat(file.level) != levelFormat(outputLevel)) ChangelogWithRewrite
      else if (vectors && !file.deleteRowCount.contains(0L)) ChangelogWithRewrite
      else if (outputLevel == maxLevel) ChangelogNoRewrite
      else if (deduplicateWithoutSequence) ChangelogNoRewrite
      else ChangelogWithRewrite
  }

  /**
   * The rule of a table, chosen as Paimon chooses its rewriter: `full-compaction` first, else lookups
   * (`spec.lookupMerge`, or `first-row`), else plain. One departure: below the top level a
   * `full-compaction` table that looks keys up (`force-lookup`) upgrades by the lookup rule, which its
   * readers here (as Paimon's) need; Paimon's full-compaction rewriter moves its files regardless.
   */
  def of(spec: MergeEngineSpec, fullCompactionChangelog: Boolean, vectors: Boolean, maxLevel: Int,
      levelFormat: Int => String): UpgradeRule = {
    val lookup = if (!spec.lookupMerge && spec.engine != "first-row") Plain
      else Lookup(maxLevel, levelFormat, vectors, spec.engine == "deduplicate" && spec.sequenceFields.isEmpty)
    if (fullCompactionChangelog) FullChangelog(maxLevel, if (spec.lookupMerge) lookup else Plain) else lookup
  }
}
