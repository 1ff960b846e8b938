package paimonspark.lsm

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{DataField, DataTypes}
import paimonspark.format.metadata.{DataFileMeta, FileSource, SimpleStats, TableSchema}
import paimonspark.format.row.BinaryRow
import paimonspark.lsm.UpgradeStrategy.{ChangelogNoRewrite, ChangelogWithRewrite, NoChangelogNoRewrite}

/** Paimon's upgrade strategies, branch by branch, and which rule a table's options choose. */
class UpgradeRuleSuite extends AnyFunSuite {
  private val maxLevel = 5
  private val parquet: Int => String = _ => "parquet"

  private def file(level: Int, deletes: Option[Long] = Some(0)): DataFileMeta =
    DataFileMeta("f", 500, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, SimpleStats.Empty,
      SimpleStats.Empty, 0L, 0L, 0L, level, Nil, None, deletes, None, Some(FileSource.Append), None, None, None, None)

  private def spec(options: (String, String)*): MergeEngineSpec = {
    val fields = Seq(DataField(0, "k", DataTypes.int.withNullable(false)), DataField(1, "a", DataTypes.bigint))
    MergeEngineSpec.of("t", TableSchema(0, fields, 1, Nil, Seq("k"), options.toMap, None, 0L))
  }

  private def lookup(vectors: Boolean = false, deduplicate: Boolean = true, formats: Int => String = parquet) =
    UpgradeRule.Lookup(maxLevel, formats, vectors, deduplicate)

  test("lookup: a file above level 0 only moves, whatever else holds") {
    assert(lookup(vectors = true, deduplicate = false).of(3, file(1, deletes = None)) == NoChangelogNoRewrite)
  }

  test("lookup: a level-0 file going to a level of another format is rewritten, even into the top level") {
    val avroAtZero = lookup(formats = Map(0 -> "avro").withDefaultValue("parquet"))
    assert(avroAtZero.of(3, file(0)) == ChangelogWithRewrite)
    assert(avroAtZero.of(maxLevel, file(0)) == ChangelogWithRewrite)
    // Formats alike at both ends: the per-level map of other levels does not matter.
    assert(lookup(formats = Map(4 -> "orc").withDefaultValue("parquet")).of(3, file(0)) == ChangelogNoRewrite)
  }

  test("lookup with deletion vectors: a level-0 file with retractions, or an unknown count of them, is rewritten") {
    assert(lookup(vectors = true).of(3, file(0, deletes = Some(2))) == ChangelogWithRewrite)
    assert(lookup(vectors = true).of(maxLevel, file(0, deletes = None)) == ChangelogWithRewrite)
    assert(lookup(vectors = true).of(3, file(0)) == ChangelogNoRewrite)
    // Without vectors retractions may move up below the top level (into it, CompactSteps rewrites them first).
    assert(lookup().of(3, file(0, deletes = Some(2))) == ChangelogNoRewrite)
  }

  test("lookup: into the top level a level-0 file is read and moved, whatever the merge engine") {
    assert(lookup(deduplicate = false).of(maxLevel, file(0)) == ChangelogNoRewrite)
    assert(lookup(vectors = true, deduplicate = false).of(maxLevel, file(0)) == ChangelogNoRewrite)
  }

  test("lookup: below the top level only deduplicate without sequence.field moves a level-0 file unwritten") {
    assert(lookup().of(3, file(0)) == ChangelogNoRewrite)
    assert(lookup(vectors = true).of(1, file(0)) == ChangelogNoRewrite)
    assert(lookup(deduplicate = false).of(3, file(0)) == ChangelogWithRewrite)
    assert(lookup(vectors = true, deduplicate = false).of(1, file(0)) == ChangelogWithRewrite)
  }

  test("full-compaction: into the top level every file is read and moved, below it files only move") {
    val full = UpgradeRule.FullChangelog(maxLevel)
    assert(full.of(maxLevel, file(0)) == ChangelogNoRewrite)
    assert(full.of(maxLevel, file(3)) == ChangelogNoRewrite)
    assert(full.of(3, file(0)) == NoChangelogNoRewrite)
    assert(UpgradeRule.Plain.of(maxLevel, file(0)) == NoChangelogNoRewrite)
  }

  test("the rule of a table: Paimon's choice of rewriter") {
    def rule(full: Boolean, vectors: Boolean, options: (String, String)*) =
      UpgradeRule.of(spec(options: _*), full, vectors, maxLevel, parquet)
    assert(rule(full = false, vectors = false) == UpgradeRule.Plain)
    assert(rule(full = false, vectors = false, "changelog-producer" -> "input") == UpgradeRule.Plain)
    assert(rule(full = false, vectors = false, "changelog-producer" -> "lookup") == lookup())
    assert(rule(full = false, vectors = false, "changelog-producer" -> "lookup", "sequence.field" -> "a") ==
      lookup(deduplicate = false))
    assert(rule(full = false, vectors = true, "deletion-vectors.enabled" -> "true") == lookup(vectors = true))
    assert(rule(full = false, vectors = false, "force-lookup" -> "true", "merge-engine" -> "partial-update") ==
      lookup(deduplicate = false))
    // first-row looks keys up in Paimon whatever the producer.
    assert(rule(full = false, vectors = false, "merge-engine" -> "first-row") == lookup(deduplicate = false))
    assert(rule(full = true, vectors = false, "changelog-producer" -> "full-compaction") ==
      UpgradeRule.FullChangelog(maxLevel))
    assert(rule(full = true, vectors = false, "changelog-producer" -> "full-compaction", "merge-engine" -> "first-row") ==
      UpgradeRule.FullChangelog(maxLevel))
    // The one departure from Paimon: below the top level a full-compaction table that looks keys up keeps its readers right.
    assert(rule(full = true, vectors = false, "changelog-producer" -> "full-compaction", "force-lookup" -> "true",
      "merge-engine" -> "aggregation") == UpgradeRule.FullChangelog(maxLevel, lookup(deduplicate = false)))
  }
}
