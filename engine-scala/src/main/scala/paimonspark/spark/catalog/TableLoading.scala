package paimonspark.spark.catalog

import scala.jdk.OptionConverters._

import org.apache.spark.sql.connector.catalog.{Changelog, ChangelogContext, Identifier, Table, TableCatalog,
  TableContext, TimeTravel}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.spark.SparkTable

/**
 * The four ways Spark asks a catalog for a table (plain, `VERSION AS OF`, `TIMESTAMP AS OF`, and
 * Spark 4.3's table context with read options), turned into one `open` per catalog; and its
 * changes (`CHANGES FROM ...`), from the same `open`.
 */
trait TableLoading extends TableCatalog {
  /** The table, branch or system table `ident` names, at `travel` or as the read options say. */
  protected def open(ident: Identifier, travel: Option[paimonspark.table.scan.TimeTravel],
      options: CaseInsensitiveStringMap): Table

  override def loadTable(ident: Identifier): Table = open(ident, None, CaseInsensitiveStringMap.empty())

  /** `VERSION AS OF`: a tag of that name, else a snapshot id. */
  override def loadTable(ident: Identifier, version: String): Table =
    open(ident, Some(paimonspark.table.scan.TimeTravel.Version(version)), CaseInsensitiveStringMap.empty())

  /** `TIMESTAMP AS OF`, in microseconds: the latest snapshot committed at or before it. */
  override def loadTable(ident: Identifier, timestamp: Long): Table =
    open(ident, Some(SparkTable.atMicros(timestamp)), CaseInsensitiveStringMap.empty())

  /**
   * Spark's changelog API. Failures must not be UnsupportedOperationException: Spark reports that
   * one as "the catalog does not support change data capture".
   */
  override def loadChangelog(ident: Identifier, context: ChangelogContext, options: CaseInsensitiveStringMap): Changelog =
    open(ident, None, options) match {
      case t: SparkTable if t.store.pinned.isEmpty =>
        new PaimonChangelog(t.store, PaimonChangelog.range(t.store, context.range()),
          PaimonChangelog.streamStart(context.range()), t.name())
      case other => throw new paimonspark.InvalidIdentifierException(other.name(), s"${other.name()}: changes are read from a " +
        "table or a branch, not from a system table or a point in history")
    }

  /** Spark 4.3's one call for time travel and read options (`branch`, `scan.snapshot-id`, ...). */
  override def loadTable(ident: Identifier, context: TableContext, options: CaseInsensitiveStringMap): Table =
    open(ident, context.timeTravel().toScala.map {
      case v: TimeTravel.AsOfVersion => paimonspark.table.scan.TimeTravel.Version(v.version())
      case t: TimeTravel.AsOfTimestamp => SparkTable.atMicros(t.micros())
    }, options)
}
