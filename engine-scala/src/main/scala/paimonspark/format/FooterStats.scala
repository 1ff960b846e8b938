package paimonspark.format

import java.math.{BigInteger, BigDecimal => JBigDecimal}

import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.io.api.Binary
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import scala.jdk.CollectionConverters._

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
 * Value statistics of a data file taken from its Parquet footer, as Paimon's Parquet stats
 * extractor does, so no per-row work is spent on them. Only true bounds are kept: float and
 * double bounds (NaN ordering) and binary bounds are left unknown, as are nested columns.
 */
object FooterStats {

  def valueStats(fields: Seq[DataField], footer: ParquetMetadata, mode: StatsMode): (SimpleStats, Option[Seq[String]]) =
    mode match {
      case StatsMode.NoStats => (SimpleStats.Empty, Some(Nil))
      case _ =>
        val columns = fields.map(f => merged(footer, f.name))
        val mins = fields.zip(columns).map { case (f, s) => bound(f.dataType, s, mode, isMax = false) }
        val maxs = fields.zip(columns).map { case (f, s) => bound(f.dataType, s, mode, isMax = true) }
        // Truncation can give up on a max; then the min is no use alone either.
        val (lo, hi) = mins.zip(maxs).map { case (a, b) => if (a == null || b == null) (null, null) else (a, b) }.unzip
        val nulls = columns.map(_.filter(_.isNumNullsSet).map(_.getNumNulls))
        val types = fields.map(_.dataType.withNullable(true))
        (SimpleStats(BinaryRow.serialize(types, new GenericInternalRow(lo.toArray[Any])),
          BinaryRow.serialize(types, new GenericInternalRow(hi.toArray[Any])), Some(nulls)), None)
    }

  /** A top-level column's statistics over all row groups, or None when any row group lacks them. */
  private def merged(footer: ParquetMetadata, column: String): Option[Statistics[_]] = {
    val chunks = footer.getBlocks.asScala.map(_.getColumns.asScala.find(_.getPath.toArray.sameElements(Array(column))))
    if (chunks.isEmpty || chunks.exists(c => c.isEmpty || c.get.getStatistics == null || c.get.getStatistics.isEmpty)) None
    else {
      // Statistics is generic over the column's Java type; all chunks of one column share it, and
      // the casts only satisfy the compiler (they are erased).
      val acc = Statistics.createStats(chunks.head.get.getPrimitiveType).asInstanceOf[Statistics[Integer]]
      chunks.foreach(c => acc.mergeStatistics(c.get.getStatistics.asInstanceOf[Statistics[Integer]]))
      Some(acc)
    }
  }

  private def bound(t: DataType, stats: Option[Statistics[_]], mode: StatsMode, isMax: Boolean): Any = stats match {
    case Some(s) if s.hasNonNullValue && mode != StatsMode.Counts =>
      val v: Any = if (isMax) s.genericGetMax else s.genericGetMin
      t match {
        case a: AtomicType => convert(a, v, mode, isMax)
        case _ => null
      }
    case _ => null
  }

  private def convert(t: AtomicType, v: Any, mode: StatsMode, isMax: Boolean): Any = t.root match {
    case TypeRoot.Boolean => v
    case TypeRoot.TinyInt => v.asInstanceOf[Integer].toByte
    case TypeRoot.SmallInt => v.asInstanceOf[Integer].toShort
    case TypeRoot.Int | TypeRoot.Date => v
    case TypeRoot.BigInt | TypeRoot.Timestamp | TypeRoot.TimestampLtz => v
    case TypeRoot.Decimal =>
      val unscaled = v match {
        case i: Integer => BigInteger.valueOf(i.longValue())
        case l: java.lang.Long => BigInteger.valueOf(l)
        case b: Binary => new BigInteger(b.getBytes)
      }
      Decimal(new JBigDecimal(unscaled, t.scale), t.precision, t.scale)
    case TypeRoot.Char | TypeRoot.VarChar =>
      val text = v.asInstanceOf[Binary].toStringUsingUTF8
      mode match {
        case StatsMode.Truncate(n) => truncate(text, n, isMax).map(UTF8String.fromString).orNull
        case _ => UTF8String.fromString(text)
      }
    case _ => null
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
