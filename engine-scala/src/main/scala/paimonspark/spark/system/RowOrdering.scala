package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, Descending, InterpretedOrdering,
  NullsFirst, NullsLast, SortOrder => RowSortOrder}
import org.apache.spark.sql.connector.expressions.{NamedReference, NullOrdering, SortDirection, SortOrder}
import org.apache.spark.sql.types.StructType

/**
 * The ordering of a pushed `ORDER BY ... LIMIT n` over a system table's rows, with Spark's own
 * semantics (direction, null placement, type order). Pushing it lets Spark skip the range shuffle a
 * sort needs, which costs more than the rows themselves: `$snapshots ORDER BY snapshot_id DESC LIMIT 1`
 * is then a driver-side lookup.
 */
object RowOrdering {
  /** None when an order is not a plain top-level column of `fields`; Spark then sorts as usual. */
  def of(fields: StructType, orders: Seq[SortOrder]): Option[Ordering[InternalRow]] = {
    val bound = orders.map { order =>
      order.expression() match {
        case ref: NamedReference if ref.fieldNames().length == 1 && fields.fieldNames.contains(ref.fieldNames()(0)) =>
          val index = fields.fieldIndex(ref.fieldNames()(0))
          val field = fields(index)
          Some(RowSortOrder(BoundReference(index, field.dataType, field.nullable),
            if (order.direction() == SortDirection.ASCENDING) Ascending else Descending,
            if (order.nullOrdering() == NullOrdering.NULLS_FIRST) NullsFirst else NullsLast, Seq.empty))
        case _ => None
      }
    }
    if (bound.isEmpty || bound.contains(None)) None else Some(new InterpretedOrdering(bound.flatten))
  }
}
