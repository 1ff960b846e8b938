package paimonspark.spark.catalog

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Changelog, ChangelogRange, Column}
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.SnapshotNotFoundException
import paimonspark.spark.SparkTable
import paimonspark.spark.read.{ChangeColumns, ChangeScanBuilder}
import paimonspark.table.FileStoreTable
import paimonspark.table.changes.{ChangeRange, ChangeScanMode, CommitChanges}
import paimonspark.table.scan.{ScanMode, TimeTravel}

/**
 * A table's changes as Spark's changelog API reads them (`CHANGES FROM VERSION ...`, `changes()`):
 * the rows of each commit's changelog files (or, without a producer, its new data files) with
 * Paimon's row kinds as Spark's change types and the snapshot as the commit version.
 *
 * What is declared: a primary-key table's changes may hold several changes of a key (intermediate
 * changes, so Spark can net them by key), and updates come as update_preimage/update_postimage
 * pairs where the producer writes -U/+U, never as a delete and an insert; nothing is a carry-over,
 * since files are never rewritten into the changelog. An append table's rows have no identity, so
 * it declares nothing and offers no row id.
 */
final class PaimonChangelog(table: FileStoreTable, range: ChangeRange, streamStart: Map[String, String],
    displayName: String) extends Changelog {
  override def name(): String = displayName

  override def columns(): Array[Column] =
    ChangeScanBuilder.schema(table, ChangeColumns.SparkChangelog).fields.map(f =>
      Column.create(f.name, f.dataType, f.nullable))

  override def containsCarryoverRows(): Boolean = false
  override def containsIntermediateChanges(): Boolean = table.isPrimaryKeyTable
  override def representsUpdateAsDeleteAndInsert(): Boolean = false

  override def rowId(): Array[NamedReference] = table.schema.primaryKeys.map(k => Expressions.column(k)).toArray

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val mode = ChangeScanMode.resolve(table, ChangeScanMode.Auto)
    SparkTable.streamable(table, new CaseInsensitiveStringMap((options.asScala ++ streamStart).asJava),
      ChangeColumns.SparkChangelog,
      new ChangeScanBuilder(table, filter => CommitChanges.plan(table, range, mode, filter), ChangeColumns.SparkChangelog))
  }
}

object PaimonChangelog {
  /**
   * Where a stream of changes starts (`readStream.changes()`, `FROM STREAM t CHANGES FROM ...`):
   * at the snapshot or time the range starts from, else, as Paimon streams, with the current state.
   */
  def streamStart(spark: ChangelogRange): Map[String, String] = spark match {
    case v: ChangelogRange.VersionRange => v.startingVersion().trim.toLongOption.map { id =>
      Map(ScanMode.Key -> ScanMode.FromSnapshot,
        TimeTravel.SnapshotIdKey -> (id + (if (v.startingBoundInclusive()) 0 else 1)).toString)
    }.getOrElse(Map.empty)
    case t: ChangelogRange.TimestampRange => Map(ScanMode.Key -> ScanMode.FromTimestamp,
      TimeTravel.TimestampMillisKey -> (Math.floorDiv(t.startingTimestamp() + 999, 1000L) - 1).toString)
    case _ => Map.empty
  }

  /** The snapshots a range of Spark's changelog API names; versions are snapshot ids or tags. */
  def range(table: FileStoreTable, spark: ChangelogRange): ChangeRange = {
    val snapshots = table.snapshotManager
    val earliest = table.earliestChangesId.getOrElse(1L)
    val latest = snapshots.latestId().getOrElse(0L)
    spark match {
      case v: ChangelogRange.VersionRange =>
        def id(version: String): Long = ChangeRange.snapshotId(table, version)
        val start = id(v.startingVersion()) - (if (v.startingBoundInclusive()) 1 else 0)
        val end = if (v.endingVersion().isPresent) id(v.endingVersion().get()) - (if (v.endingBoundInclusive()) 0 else 1)
          else latest
        if (start > latest) {
          throw new SnapshotNotFoundException(snapshot = start.toString, message = s"table ${table.name}: there are no changes after snapshot $start; the " +
            s"latest snapshot is $latest")
        }
        ChangeRange.checked(table, start, end, s"from version ${v.startingVersion()} to " +
          (if (v.endingVersion().isPresent) s"version ${v.endingVersion().get()}" else "the latest"))
      case t: ChangelogRange.TimestampRange =>
        // Commit times are milliseconds; the bounds are microseconds.
        val s = t.startingTimestamp()
        val from = if (t.startingBoundInclusive()) Math.floorDiv(s + 999, 1000L) - 1 else Math.floorDiv(s, 1000L)
        val to = if (!t.endingTimestamp().isPresent) Long.MaxValue
          else if (t.endingBoundInclusive()) Math.floorDiv(t.endingTimestamp().get(), 1000L)
          else Math.floorDiv(t.endingTimestamp().get() + 999, 1000L) - 1
        ChangeRange.atTimes(table, from, to)
      case _ => ChangeRange(earliest - 1, latest)
    }
  }
}
