package paimonspark.spark.write

import java.nio.ByteBuffer

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.RowOrdering
import org.apache.spark.sql.paimon.TableFrames

import paimonspark.InvalidOptionException
import paimonspark.format.metadata.{FileIdentifier, Snapshot}
import paimonspark.spark.{SparkSchemas, SparkTable}
import paimonspark.table.{FileStoreTable, Predicate, TableFeatures}
import paimonspark.table.scan.{DataSplit, ScanPlanner}
import paimonspark.table.write.{AppendVectors, IndexChange, OverwriteScope}

/**
 * Sort compaction of an append table (`compact` with `order_strategy`), as Paimon's: every file of
 * the selected partitions is read at one snapshot and written back ordered by `order_by`, plainly
 * (`order`) or along a space-filling curve over the columns (`zorder`, `hilbert`), range-partitioned
 * so that each new file holds a narrow range of the key and its statistics skip it for filters on
 * those columns. It replaces exactly the files it read in one OVERWRITE commit: a file another commit
 * removed meanwhile fails it, and files appended meanwhile stay. Rows deletion vectors mark are not
 * read, and the rewritten files' vectors go.
 */
object SortCompaction {
  sealed abstract class Curve(val name: String)
  object Curve {
    case object Order extends Curve("order")
    case object ZOrder extends Curve("zorder")
    case object Hilbert extends Curve("hilbert")

    def parse(text: String): Curve = Seq(Order, ZOrder, Hilbert).find(_.name == text.trim.toLowerCase).getOrElse(
      throw new InvalidOptionException("order_strategy", s"compact: order_strategy must be none, order, zorder or " +
        s"hilbert, not '$text'"))
  }

  /** Returns the OVERWRITE snapshot's id, or None when the selected partitions hold no file. */
  def run(table: FileStoreTable, partitions: Option[Predicate], curve: Curve, columns: Seq[String]): Option[Long] = {
    check(table, curve, columns)
    TableFeatures.requireWritable(table)
    table.currentSnapshot().flatMap { snapshot =>
      val splits = new ScanPlanner(table, appliesDeletionVectors = table.options.deletionVectors).plan(Some(snapshot), partitions)
      if (splits.isEmpty) None
      else {
        val read = splits.flatMap(s => s.files.map(f => FileIdentifier.of(s.partitionBytes, s.bucket, f))).toSet
        val session = SparkSession.active
        val frame = TableFrames.of(session, new SparkTable(table.readingAt(snapshot), table.name))
        val selected = partitions.fold(frame)(p => frame.where(TableRewrite.partitionColumn(frame, table, p)))
        val order = table.schema.partitionKeys.map(TableRewrite.quoted(frame, _)) ++ key(frame, curve, columns)
        val sorted = selected.repartitionByRange(session.sessionState.conf.numShufflePartitions, order: _*)
          .sortWithinPartitions(order: _*)
        TableRewrite.commit(table, sorted, new AppendWriterFactory(table), OverwriteScope.Files(read),
          vectorsDropped(table, snapshot, splits))._1
      }
    }
  }

  private def check(table: FileStoreTable, curve: Curve, columns: Seq[String]): Unit = {
    if (columns.isEmpty) {
      throw new InvalidOptionException("order_by", s"compact: order_strategy '${curve.name}' needs order_by columns")
    }
    val types = SparkSchemas.sparkSchema(table.schema)
    columns.foreach { c =>
      if (!types.fieldNames.contains(c)) {
        throw new InvalidOptionException("order_by", s"compact: order_by column '$c' is not a column of ${table.name} " +
          s"(${types.fieldNames.mkString(", ")})")
      }
      if (table.schema.partitionKeys.contains(c)) {
        throw new InvalidOptionException("order_by", s"compact: order_by column '$c' is a partition column of " +
          s"${table.name}; sorting within a partition by it means nothing")
      }
      val sortable = if (curve == Curve.Order) RowOrdering.isOrderable(types(c).dataType) else CurveKey.supports(types(c).dataType)
      if (!sortable) {
        throw new InvalidOptionException("order_by", s"compact: order_by column '$c' of type ${types(c).dataType.sql} " +
          s"cannot be sorted by ${curve.name}")
      }
    }
  }

  private def key(frame: DataFrame, curve: Curve, columns: Seq[String]): Seq[Column] = curve match {
    case Curve.Order => columns.map(TableRewrite.quoted(frame, _))
    case _ => Seq(TableFrames.column(CurveKey(columns.map(c => UnresolvedAttribute(Seq(c))), curve == Curve.Hilbert)))
  }

  /**
   * With deletion vectors, the rows they mark are not read, so the rewritten files' vectors leave
   * their partitions' indexes in the same commit.
   */
  private def vectorsDropped(table: FileStoreTable, snapshot: Snapshot, splits: Seq[DataSplit]): Seq[IndexChange] =
    if (!table.options.deletionVectors) Nil
    else {
      val vectors = new AppendVectors(table, Some(snapshot))
      splits.groupBy(s => ByteBuffer.wrap(s.partitionBytes)).values.toSeq.flatMap { inPartition =>
        vectors.rewrite(inPartition.head.partitionBytes, Map.empty, inPartition.flatMap(_.files.map(_.fileName)).toSet)
      }
    }
}
