package paimonspark.spark

import java.time.ZoneId
import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{MetadataColumn, SupportsDeleteV2, SupportsMetadataColumns, SupportsRead,
  SupportsRowLevelOperations, SupportsSchemaEvolution, SupportsWrite, Table, TableCapability, TableCatalog, TableChange}
import org.apache.spark.sql.connector.catalog.TableCapability._
import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.expressions.filter.{Predicate => SparkPredicate}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperationBuilder, RowLevelOperationInfo,
  WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.spark.catalog.{SessionOptions, TableName}
import paimonspark.spark.read.{BucketColumn, ChangeColumns, ChangeScanBuilder, DiffScanBuilder, FilePathColumn, RowIndexColumn,
  PaimonMicroBatchStream, PaimonScanBuilder, StreamableScanBuilder}
import paimonspark.spark.system.SystemTables
import paimonspark.spark.write.{CopyOnWriteOperation, KeyDeltaOperation, PaimonWriteBuilder, PartitionPredicates, VectorDeltaOperation,
  WriteEvolution}
import paimonspark.table.{FileStoreTable, KeyLayout, TableFeatures, TableOptions}
import paimonspark.table.changes.{ChangeRange, ChangeRead, ChangeScanMode, CommitChanges}
import paimonspark.table.options.DynamicOptions
import paimonspark.table.scan.TimeTravel
import paimonspark.table.write.{OverwriteScope, TableCommit}

/**
 * A Paimon table as Spark sees it. A table opened by path (`spark.read.format("paimon")`) does not
 * offer batch writes, so Spark hands path writes to [[PaimonSource]], which handles every save mode.
 * A table pinned to a snapshot (time travel) is read only, and so is `t$ro` (`readOptimized`),
 * which reads only the files of a primary-key table's top level, without merging.
 */
class SparkTable(val store: FileStoreTable, tableName: String, pathBased: Boolean = false, readOptimized: Boolean = false)
    extends Table with SupportsRead with SupportsWrite with SupportsRowLevelOperations with SupportsDeleteV2
    with SupportsSchemaEvolution with SupportsMetadataColumns with PartitionManagement {

  override def name(): String = tableName

  override def schema(): StructType = {
    TableFeatures.requireColumnTypes(store)
    SparkSchemas.sparkSchema(store.schema)
  }

  override def partitioning(): Array[Transform] =
    store.schema.partitionKeys.map(k => Expressions.identity(k): Transform).toArray

  /**
   * What SHOW CREATE TABLE and DESCRIBE EXTENDED print: the options, the primary key as Paimon's
   * `primary-key` property (CREATE TABLE reads it back), the comment and the location. The location is
   * the catalog's to choose (`is_managed_location`), so SHOW CREATE TABLE leaves it out and its output
   * creates a table of another name where the catalog puts it.
   */
  override def properties(): util.Map[String, String] =
    (store.schema.options ++ Map(TableCatalog.PROP_PROVIDER -> "paimon",
      TableCatalog.PROP_LOCATION -> store.paths.root.toString, TableCatalog.PROP_IS_MANAGED_LOCATION -> "true") ++
      store.schema.comment.map(TableCatalog.PROP_COMMENT -> _) ++
      Some(store.schema.primaryKeys).filter(_.nonEmpty).map(TableOptions.PrimaryKey -> _.mkString(","))).asJava

  /** Every row knows its bucket; append tables' rows their data file too (primary-key rows are merged from several). */
  override def metadataColumns(): Array[MetadataColumn] =
    if (store.isPrimaryKeyTable) Array(BucketColumn) else Array(FilePathColumn, RowIndexColumn, BucketColumn)

  override def capabilities(): util.Set[TableCapability] =
    // A pinned table streams too: `scan.snapshot-id` and `scan.timestamp-millis` say where a stream starts.
    (if (readOptimized) Set(BATCH_READ)
     else if (pathBased || store.pinned.isDefined) Set(BATCH_READ, MICRO_BATCH_READ)
     else Set(BATCH_READ, MICRO_BATCH_READ, BATCH_WRITE, STREAMING_WRITE, TRUNCATE, OVERWRITE_BY_FILTER, AUTOMATIC_SCHEMA_EVOLUTION,
       OVERWRITE_DYNAMIC)).asJava

  /**
   * Read options naming a branch or a point in history (`spark.read.option(...)`) take effect here;
   * a range of changes (`incremental-between`) reads the rows those commits wrote.
   */
  override def newScanBuilder(given: CaseInsensitiveStringMap): ScanBuilder = {
    val options = SessionOptions.forRead(tableName, given)
    lazy val table = SparkTable.withDynamicOptions(store, options)
    SparkTable.streamable(store, options, ChangeColumns.None,
      SparkTable.changeScan(table, options, ChangeColumns.None).getOrElse(new PaimonScanBuilder(table, readOptimized)))
  }

  /**
   * Refuses to write a table pinned to a point in history, the read-optimized view, or a table using
   * a feature that a write here would break.
   */
  override protected def writable(): Unit = {
    store.pinned.foreach { s =>
      throw new UnsupportedFeatureException(s"table $tableName is read as of snapshot ${s.id} (time travel or a tag); " +
        "it cannot be written")
    }
    if (readOptimized) throw new UnsupportedFeatureException(s"table $tableName is a read-only view; write the table itself")
    TableFeatures.requireWritable(store)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    writable()
    DynamicOptions.checkWrite(tableName, info.options().asCaseSensitiveMap().asScala.toMap)
    TimeTravel.Keys.find(k => info.options().containsKey(k)).foreach { k =>
      throw new UnsupportedFeatureException(s"table $tableName: '$k' names a point in history, which cannot be " +
        "written; tags and snapshots are read only")
    }
    val target = Option(info.options().get(SparkTable.BranchOption)).map(b => new SparkTable(store.branch(b), tableName))
      .getOrElse(this)
    // Tables written by other engines may use layouts this one cannot write yet.
    if (target ne this) TableFeatures.requireWritable(target.store)
    KeyLayout.of(tableName, target.store.schema)
    new PaimonWriteBuilder(target, info.queryId())
  }

  /**
   * The schema changes a write with schema evolution (`INSERT WITH SCHEMA EVOLUTION`, `MERGE WITH
   * SCHEMA EVOLUTION`) may make before it writes: new nullable columns, and type changes Paimon
   * allows (widenings; other casts only with `write.merge-schema.explicit-cast`). Spark makes them
   * through the catalog's ALTER TABLE, by Paimon's rules.
   */
  override def supportsColumnChange(change: TableChange.ColumnChange): Boolean = change match {
    case a: TableChange.AddColumn => a.isNullable && a.defaultValue() == null
    case u: TableChange.UpdateColumnType => WriteEvolution.allowsTypeChange(store, u)
    case _ => false
  }

  /** Row-level statements that Spark cannot turn into [[deleteWhere]]. */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = {
    writable()
    if (store.isPrimaryKeyTable && KeyDeltaOperation.rewritesFiles(store, info.command())) {
      () => new CopyOnWriteOperation(this, info.command())
    } else if (store.isPrimaryKeyTable) () => new KeyDeltaOperation(this, info.command())
    else if (store.options.deletionVectors) () => new VectorDeltaOperation(this, info.command())
    else () => new CopyOnWriteOperation(this, info.command())
  }

  /**
   * A DELETE whose condition only compares partition columns with values drops whole partitions,
   * unless `delete.force-produce-changelog`: then its rows are deleted one by one, so that a
   * primary-key table's changelog holds them.
   */
  override def canDeleteWhere(predicates: Array[SparkPredicate]): Boolean =
    !store.options.deleteForceProducesChangelog && PartitionPredicates.scope(store.schema, predicates).isDefined

  override def deleteWhere(predicates: Array[SparkPredicate]): Unit = {
    writable()
    val scope = PartitionPredicates.scope(store.schema, predicates).getOrElse(
      throw new UnsupportedFeatureException(s"table $tableName: DELETE WHERE ${predicates.mkString(" AND ")} needs " +
        "rows to be read; only conditions on partition columns drop partitions"))
    dropFiles(scope)
  }

  override def truncateTable(): Boolean = {
    writable()
    dropFiles(OverwriteScope.WholeTable)
    true
  }

  /** One OVERWRITE commit removing the files in `scope`, reading and writing no data. */
  override protected def dropFiles(scope: OverwriteScope): Unit =
    new TableCommit(store, java.util.UUID.randomUUID().toString).commit(Nil, Some(scope))
}

object SparkTable {
  /** The read and write option that picks a branch, as in Paimon. */
  val BranchOption = "branch"

  /** The session's time zone, in which read options' local date-times are read. */
  def zone: ZoneId = ZoneId.of(SparkSession.active.sessionState.conf.sessionLocalTimeZone)

  /** The table a name and options address: a branch, a point in history, or a system table over them. */
  def open(main: FileStoreTable, name: TableName, displayName: String, travel: Option[TimeTravel],
      options: CaseInsensitiveStringMap, pathBased: Boolean = false): Table = {
    val branch = name.branch.orElse(Option(options.get(BranchOption)))
    val onBranch = branch.fold(main)(main.branch).withDynamicOptions(SessionOptions.tableOptions(displayName))
    val point = travel.orElse(TimeTravel.fromOptions(k => Option(options.get(k)), zone))
    // A read option where Spark passes them (path reads), else a table option.
    val changelog = Option(options.get(ReadChangelogOption)).orElse(onBranch.schema.options.get(ReadChangelogOption))
      .exists(_.trim.equalsIgnoreCase("true"))
    name.system match {
      case Some(kind) => SystemTables.load(kind, onBranch, point, displayName)
      case None if changelog => SystemTables.load("audit_log", onBranch, point, displayName)
      case None => new SparkTable(point.fold(onBranch)(TimeTravel.travel(onBranch, _)), displayName, pathBased)
    }
  }

  /**
   * A table with the branch and time travel of read options applied, when it has none yet, and the
   * table options they give (`source.split.target-size`, ...) in place of its own.
   */
  def withDynamicOptions(store: FileStoreTable, options: CaseInsensitiveStringMap): FileStoreTable = {
    val readOptions = options.asCaseSensitiveMap().asScala.toMap
    DynamicOptions.checkRead(store.name, readOptions)
    val at = if (store.pinned.isDefined) store
      else {
        val onBranch = Option(options.get(BranchOption)).fold(store)(store.branch)
        TimeTravel.fromOptions(k => Option(options.get(k)), zone).fold(onBranch)(TimeTravel.travel(onBranch, _))
      }
    at.withDynamicOptions(DynamicOptions.tableOptionsOfRead(readOptions))
  }

  /** Paimon's read option that streams a table with a leading `rowkind` column, as `$audit_log` does. */
  val ReadChangelogOption = "read.changelog"

  /** A batch scan builder whose scans also stream `store` (at its branch's latest state) as the options say. */
  def streamable(store: FileStoreTable, options: CaseInsensitiveStringMap, added: ChangeColumns, batch: => ScanBuilder)
      : ScanBuilder = {
    val readOptions = options.asCaseSensitiveMap().asScala.toMap
    DynamicOptions.checkRead(store.name, readOptions)
    new StreamableScanBuilder(batch, () =>
      new PaimonMicroBatchStream(store.latest.withDynamicOptions(DynamicOptions.tableOptionsOfRead(readOptions)), options.asScala.toMap,
        added))
  }

  /** A scan of the range of changes the read options name, if they name one. */
  def changeScan(table: FileStoreTable, options: CaseInsensitiveStringMap, added: ChangeColumns): Option[ScanBuilder] =
    ChangeRange.fromOptions(table, k => Option(options.get(k)), zone).map { read =>
      table.pinned.foreach { s =>
        throw new InvalidOptionException(ChangeRange.BetweenKey, s"table ${table.name}: a range of changes cannot be " +
          s"read from a table read as of snapshot ${s.id}; give either")
      }
      read match {
        case ChangeRead.Diff(start, end) => new DiffScanBuilder(table, start, end, added)
        case ChangeRead.Commits(range, mode) =>
          val files = ChangeScanMode.resolve(table, mode)
          new ChangeScanBuilder(table, filter => CommitChanges.plan(table, range, files, filter), added)
      }
    }

  /** A time-travel timestamp as Spark passes it (microseconds since the epoch). */
  def atMicros(micros: Long): TimeTravel = TimeTravel.AtMillis(Math.floorDiv(micros, 1000L))
}
