package paimonspark.table.options

/**
 * What a primary-key table writes as its changelog (`changelog-producer`), by Paimon's values:
 * nothing (readers take each commit's new level-0 files), every input row (`input`), exact changes
 * found by looking keys up while compacting (`lookup`), or the difference between full compactions
 * (`full-compaction`).
 */
object ChangelogProducer {
  val None = "none"
  val Input = "input"
  val Lookup = "lookup"
  val FullCompaction = "full-compaction"
  val All: Set[String] = Set(None, Input, Lookup, FullCompaction)
}
