package paimonspark.format.parquet

import java.math.{BigInteger, BigDecimal => JBigDecimal}

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{AtomicType, ColumnStats, DataField, FileStats, TypeRoot}


/**
 * Column statistics of a Parquet data file taken from its footer, as Paimon's Parquet stats extractor
 * does, so no per-row work is spent on them. Only true bounds are kept: float and double bounds (NaN
 * ordering) and binary bounds are left unknown, as are nested columns.
 */
final class ParquetFooterStats(footer: ParquetMetadata, fields: Seq[DataField]) extends FileStats {
  private val types = fields.map(f => f.name -> f.dataType).toMap

  override def column(name: String): ColumnStats = merged(name) match {
    case None => ColumnStats.Unknown
    case Some(s) =>
      val nulls = Option.when(s.isNumNullsSet)(s.getNumNulls)
      types.get(name) match {
        case Some(t: AtomicType) if s.hasNonNullValue =>
          val unit = timestampUnit(s.`type`())
          ColumnStats(convert(t, unit, s.genericGetMin), convert(t, unit, s.genericGetMax), nulls)
        case _ => ColumnStats(null, null, nulls)
      }
  }

  /** A top-level column's statistics over all row groups, or None when any row group lacks them. */
  private def merged(column: String): Option[Statistics[_]] = {
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

  /** The unit of an INT64 timestamp column as its annotation says (INT96 columns have no bounds to convert). */
  private def timestampUnit(column: PrimitiveType): Option[TimeUnit] = column.getLogicalTypeAnnotation match {
    case t: LogicalTypeAnnotation.TimestampLogicalTypeAnnotation => Some(t.getUnit)
    case _ => None
  }

  /** A bound as Paimon's statistics hold it; timestamps in microseconds, as Spark's values are. */
  private def convert(t: AtomicType, unit: Option[TimeUnit], v: Any): Any = t.root match {
    case TypeRoot.Boolean => v
    case TypeRoot.TinyInt => v.asInstanceOf[Integer].toByte
    case TypeRoot.SmallInt => v.asInstanceOf[Integer].toShort
    case TypeRoot.Int | TypeRoot.Date => v
    case TypeRoot.BigInt => v
    case TypeRoot.Timestamp | TypeRoot.TimestampLtz => (unit, v) match {
      case (Some(TimeUnit.MILLIS), millis: java.lang.Long) => millis * 1000L
      case (Some(TimeUnit.MICROS), micros: java.lang.Long) => micros
      case _ => null
    }
    case TypeRoot.Decimal =>
      val unscaled = v match {
        case i: Integer => BigInteger.valueOf(i.longValue())
        case l: java.lang.Long => BigInteger.valueOf(l)
        case b: Binary => new BigInteger(b.getBytes)
      }
      Decimal(new JBigDecimal(unscaled, t.scale), t.precision, t.scale)
    case TypeRoot.Char | TypeRoot.VarChar => UTF8String.fromString(v.asInstanceOf[Binary].toStringUsingUTF8)
    case _ => null
  }
}
