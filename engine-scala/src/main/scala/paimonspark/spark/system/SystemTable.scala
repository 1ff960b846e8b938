package paimonspark.spark.system

import java.time.{Instant, LocalDateTime, ZoneId}
import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.sources.{EqualTo, Filter, In}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.spark.SparkTable
import paimonspark.table.FileStoreTable

/**
 * A read-only table of metadata, computed on the driver from metadata files alone (never data
 * files). Rows describe the table as the read options address it (a branch, a snapshot), else as
 * it was loaded. What Spark pushes reaches [[rows]] as [[FilterHints]]: a table may use them on its
 * key columns to compute fewer rows ([[SystemScanBuilder]] applies them all to what it returns).
 */
abstract class SystemTable(loaded: FileStoreTable, displayName: String) extends Table with SupportsRead {
  /** Paimon's column names and types. */
  def fields: StructType
  def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow]

  override def name(): String = displayName
  override def schema(): StructType = fields
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new SystemScanBuilder(this, SparkTable.withDynamicOptions(loaded, options))
}

/**
 * What Spark pushed: a conjunction of filters, and maybe an `ORDER BY column LIMIT n` (applied to the
 * rows returned anyway, so a table may use it to compute fewer rows, or ignore it).
 */
final case class FilterHints(filters: Seq[Filter], top: Option[TopRows] = None) {
  /** With an `ORDER BY column LIMIT n` on `column`: whether descending, and n. */
  def topBy(column: String): Option[(Boolean, Int)] = top.collect { case TopRows(`column`, descending, n) => (descending, n) }

  /** The values the filters pin a column to (`c = v`, `c IN (...)`), if they do. */
  def values(column: String): Option[Set[Any]] = filters.collect {
    case EqualTo(`column`, v) => Set[Any](v)
    case In(`column`, vs) => vs.toSet[Any]
  }.reduceOption(_ intersect _)

  def longs(column: String): Option[Set[Long]] = values(column).map(_.collect { case n: java.lang.Number => n.longValue() })
  def ints(column: String): Option[Set[Int]] = values(column).map(_.collect { case n: java.lang.Number => n.intValue() })
  def strings(column: String): Option[Set[String]] = values(column).map(_.map(String.valueOf))
}

/** A pushed `ORDER BY column [DESC] LIMIT limit` on one column. */
final case class TopRows(column: String, descending: Boolean, limit: Int)

/** Values as Spark's internal rows hold them. */
object Cells {
  def str(s: String): UTF8String = UTF8String.fromString(s)
  def str(s: Option[String]): UTF8String = s.map(UTF8String.fromString).orNull
  def long(v: Option[Long]): Any = v.map(Long.box).orNull

  private def zone: ZoneId = ZoneId.of(SparkSession.active.sessionState.conf.sessionLocalTimeZone)

  /** A TIMESTAMP(3) without time zone, as Paimon shows commit times: the local time of the epoch millis. */
  def localTime(millis: Long): Long =
    DateTimeUtils.localDateTimeToMicros(LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), zone))

  def localTime(t: LocalDateTime): Long = DateTimeUtils.localDateTimeToMicros(t)
}
