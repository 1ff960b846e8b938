package paimonspark.format

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
