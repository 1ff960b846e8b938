package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.expressions.{NamedReference, SortDirection, SortOrder}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns,
  SupportsPushDownTopN}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.spark.LocalRows
import paimonspark.table.FileStoreTable

/**
 * The scan of a system table: its rows, computed on the driver, with what Spark pushes applied here.
 * Filters are hints (Spark applies them again); an `ORDER BY ... LIMIT` on columns and the columns
 * read are applied to the rows, so that a metadata query plans as a bare local scan, which Spark
 * collects without running a job: sorting, or even projecting, a handful of rows in a Spark job
 * costs tens of milliseconds more than computing them.
 */
final class SystemScanBuilder(fields: StructType, rows: FilterHints => Seq[InternalRow]) extends ScanBuilder
    with SupportsPushDownFilters with SupportsPushDownTopN with SupportsPushDownRequiredColumns {
  /** A table's scan, of its rows as `at` (the table as the read options address it) has them. */
  def this(table: SystemTable, at: => FileStoreTable) = this(table.fields, table.rows(at, _))

  private var pushed = Array.empty[Filter]
  private var top: Option[(Ordering[InternalRow], Int)] = None
  private var topRows: Option[TopRows] = None
  private var columns: StructType = fields

  override def pushFilters(filters: Array[Filter]): Array[Filter] = { pushed = filters; filters }
  override def pushedFilters(): Array[Filter] = pushed

  override def pushTopN(orders: Array[SortOrder], limit: Int): Boolean = {
    top = RowOrdering.of(fields, orders.toSeq).map(_ -> limit)
    topRows = orders.toSeq match {
      case Seq(order) if top.isDefined =>
        Some(TopRows(order.expression().asInstanceOf[NamedReference].fieldNames()(0),
          order.direction() == SortDirection.DESCENDING, limit))
      case _ => None
    }
    top.isDefined
  }
  override def isPartiallyPushed: Boolean = false

  // Top-level columns only: a pruned struct (`dv_ranges[0]._CARDINALITY`) would call for rebuilding
  // nested values, and Spark reads the fields it needs from a whole struct as well.
  override def pruneColumns(required: StructType): Unit = columns = StructType(required.fieldNames.map(fields(_)))

  override def build(): Scan = {
    val all = rows(FilterHints(pushed.toSeq, topRows))
    val chosen = top.fold(all) { case (ordering, limit) => all.sorted(ordering).take(limit) }
    if (columns == fields) LocalRows(columns, chosen.toArray)
    else {
      val indices = columns.fieldNames.map(fields.fieldIndex)
      val types = indices.map(fields(_).dataType)
      LocalRows(columns, chosen.map { row =>
        new GenericInternalRow(indices.indices.map(i => row.get(indices(i), types(i))).toArray[Any]): InternalRow
      }.toArray)
    }
  }
}
