package paimonspark.lsm

import scala.collection.mutable.ArrayBuffer

import paimonspark.format.metadata.DataFileMeta

/** One step of carrying out a [[CompactUnit]]. */
sealed trait CompactStep

object CompactStep {
  /** These files are merged into new files at the unit's output level. */
  final case class Rewrite(files: Seq[DataFileMeta]) extends CompactStep
  /**
   * This file moves to the output level as it is: only its manifest entry changes. With `read`, it
   * is first merged as a rewrite would merge it, for what that changes elsewhere (its changelog, the
   * deletion vectors of the versions it replaces), and nothing of it is written.
   */
  final case class Upgrade(file: DataFileMeta, read: Boolean = false) extends CompactStep
}

/**
 * How Paimon carries out a compaction unit, a pure function of its files cut into key sections:
 * a section of overlapping files is rewritten; a file that overlaps nothing is moved up a level
 * without being rewritten when it is large (at least `minFileSize`), or joins the neighbouring
 * rewrite when it is small. Consecutive rewritten sections form one rewrite, so small files are
 * merged together instead of each moving up alone; a rewrite that comes down to one file moves
 * it up instead. A file holding retractions (or not saying how many) is rewritten rather than
 * moved into the top level, where retractions are dropped. Files already at the output level
 * and not rewritten stay untouched. Any other file moved up is read, rewritten or only moved as
 * `upgrades` says (a changelog producer reads every version it counts as new, and a table that looks
 * keys up rewrites what its readers would merge wrongly), and with `rewriteAll` every file is rewritten.
 */
final case class CompactSteps(outputLevel: Int, maxLevel: Int, minFileSize: Long,
    upgrades: UpgradeRule = UpgradeRule.Plain, rewriteAll: Boolean = false) {
  import CompactStep._

  def plan(sections: Seq[Seq[DataFileMeta]]): Seq[CompactStep] = {
    val steps = ArrayBuffer.empty[CompactStep]
    val pending = ArrayBuffer.empty[Seq[DataFileMeta]]

    def upgrade(file: DataFileMeta): Unit =
      if (rewriteAll || outputLevel == maxLevel && !file.deleteRowCount.contains(0L)) steps += Rewrite(Seq(file))
      else if (file.level != outputLevel) {
        val strategy = upgrades.of(outputLevel, file)
        steps += (if (strategy.rewrite) Rewrite(Seq(file)) else Upgrade(file, strategy.read))
      }

    def flush(): Unit = {
      pending.toSeq match {
        case Seq() => ()
        case Seq(Seq(single)) => upgrade(single)
        case sections => steps += Rewrite(sections.flatten)
      }
      pending.clear()
    }

    sections.foreach {
      case Seq(file) if file.fileSize >= minFileSize =>
        flush()
        upgrade(file)
      case section => pending += section
    }
    flush()
    steps.toSeq
  }
}
