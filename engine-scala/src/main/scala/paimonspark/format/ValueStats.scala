package paimonspark.format

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

/** `metadata.stats-mode`: how much of a column's statistics a data file's metadata keeps. */
sealed trait StatsMode
object StatsMode {
  case object NoStats extends StatsMode
  case object Counts extends StatsMode
  final case class Truncate(length: Int) extends StatsMode
  case object Full extends StatsMode

  private val TruncatePattern = "(?i)truncate\\((\\d+)\\)".r

  def parse(text: String): Option[StatsMode] = text.trim.toLowerCase match {
    case "none" => Some(NoStats)
    case "counts" => Some(Counts)
    case "full" => Some(Full)
    case TruncatePattern(n) if n.toInt > 0 => Some(Truncate(n.toInt))
    case _ => None
  }
}

/**
 * One top-level column of a written data file: its bounds, as Paimon's statistics hold values
 * (Byte, Short, Int, Long, Boolean, Decimal, UTF8String), null where unknown, and its null count.
 */
final case class ColumnStats(min: Any, max: Any, nulls: Option[Long])

object ColumnStats {
  val Unknown: ColumnStats = ColumnStats(null, null, None)
}

/** The column statistics a data file's writer gives once the file is closed, whatever its format. */
trait FileStats {
  def column(name: String): ColumnStats
}

/**
 * The value statistics a data file's manifest entry keeps (`metadata.stats-mode`): the writer's
 * column statistics, kept whole, truncated (strings) or reduced to null counts.
 */
object ValueStats {

  def of(fields: Seq[DataField], stats: FileStats, mode: StatsMode): (SimpleStats, Option[Seq[String]]) =
    mode match {
      case StatsMode.NoStats => (SimpleStats.Empty, Some(Nil))
      case _ =>
        val columns = fields.map(f => stats.column(f.name))
        val mins = columns.map(c => bound(c.min, mode, isMax = false))
        val maxs = columns.map(c => bound(c.max, mode, isMax = true))
        // Truncation can give up on a max; then the min is no use alone either.
        val (lo, hi) = mins.zip(maxs).map { case (a, b) => if (a == null || b == null) (null, null) else (a, b) }.unzip
        val types = fields.map(_.dataType.withNullable(true))
        (SimpleStats(BinaryRow.serialize(types, new GenericInternalRow(lo.toArray[Any])),
          BinaryRow.serialize(types, new GenericInternalRow(hi.toArray[Any])), Some(columns.map(_.nulls))), None)
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
