package paimonspark.format.metadata

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{DataField, FileStats, StatsMode}
import paimonspark.format.row.BinaryRow

/**
 * The value statistics a data file's manifest entry keeps (`metadata.stats-mode`): the writer's
 * column statistics, kept whole, truncated (strings) or reduced to null counts.
 */
object ValueStats {

  /**
   * The stats of `fields`, each in its own mode (`fields.<f>.stats-mode`) or the table's. Columns in mode
   * `none` are left out, and the others named in `_VALUE_STATS_COLS`, as Paimon's dense stats store them;
   * when every column is kept, none are named.
   */
  def of(fields: Seq[DataField], stats: FileStats, mode: StatsMode,
      fieldModes: Map[String, StatsMode] = Map.empty): (SimpleStats, Option[Seq[String]]) = {
    val kept = fields.map(f => f -> fieldModes.getOrElse(f.name, mode)).filter(_._2 != StatsMode.NoStats)
    if (kept.isEmpty) (SimpleStats.Empty, Some(Nil))
    else {
      val columns = kept.map { case (f, _) => stats.column(f.name) }
      val mins = columns.zip(kept).map { case (c, (_, m)) => bound(c.min, m, isMax = false) }
      val maxs = columns.zip(kept).map { case (c, (_, m)) => bound(c.max, m, isMax = true) }
      // Truncation can give up on a max; then the min is no use alone either.
      val (lo, hi) = mins.zip(maxs).map { case (a, b) => if (a == null || b == null) (null, null) else (a, b) }.unzip
      val types = kept.map(_._1.dataType.withNullable(true))
      (SimpleStats(BinaryRow.serialize(types, new GenericInternalRow(lo.toArray[Any])),
        BinaryRow.serialize(types, new GenericInternalRow(hi.toArray[Any])), Some(columns.map(_.nulls))),
        Option.when(kept.size < fields.size)(kept.map(_._1.name)))
    }
  }

  private def bound(v: Any, mode: StatsMode, isMax: Boolean): Any = (v, mode) match {
    case (_, StatsMode.Counts) => null
    case (text: UTF8String, StatsMode.Truncate(n)) => truncate(text.toString, n, isMax).map(UTF8String.fromString).orNull
    case _ => v
  }

  /** A prefix of at most `n` code points that is still a bound: a max has its last code point raised. */
  def truncate(text: String, n: Int, isMax: Boolean): Option[String] = {
    if (text.codePointCount(0, text.length) <= n) Some(text)
    else {
      val prefix = text.substring(0, text.offsetByCodePoints(0, n))
      if (!isMax) Some(prefix)
      else {
        val last = prefix.codePointBefore(prefix.length)
        val head = prefix.substring(0, prefix.length - Character.charCount(last))
        val raised = if (last + 1 >= Character.MIN_SURROGATE && last + 1 <= Character.MAX_SURROGATE) 0xE000 else last + 1
        if (last >= Character.MAX_CODE_POINT) None else Some(head + new String(Character.toChars(raised)))
      }
    }
  }
}
