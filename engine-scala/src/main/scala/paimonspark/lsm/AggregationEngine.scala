package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.StructType

/**
 * Paimon's `aggregation` engine: every value column folds the key's versions, oldest first, with
 * its own aggregate function; sequence, kind and key come from the newest version. Retractions
 * are skipped with `ignore-delete`, else taken back out by functions that can. With
 * `aggregation.remove-record-on-delete` a -D removes the key instead: as in Paimon, its values
 * start the fold again, and the key stays removed unless a later version follows.
 */
final class AggregationEngine(schema: StructType, aggregators: Map[Int, Aggregator], ignoreDelete: Boolean,
    removeOnDelete: Boolean) extends MergeEngine {
  private var merged: Array[Any] = _
  private var deleted = false

  override def reset(): Unit = {
    merged = null
    deleted = false
  }

  override def add(row: InternalRow): Unit = {
    val retract = KeyValue.isRetract(row)
    deleted = removeOnDelete && KeyValue.kind(row) == KeyValue.Delete
    if (deleted) merged = Array.tabulate[Any](schema.length)(i => if (row.isNullAt(i)) null else row.get(i, schema(i).dataType))
    else if (!(retract && ignoreDelete)) {
      if (merged == null) merged = new Array[Any](schema.length)
      (0 until schema.length).foreach { i =>
        val value = if (row.isNullAt(i)) null else row.get(i, schema(i).dataType)
        merged(i) = aggregators.get(i) match {
          case Some(agg) => if (retract) agg.retract(merged(i), value) else agg.add(merged(i), value)
          case None => value
        }
      }
    }
  }

  override def result(): InternalRow = if (merged == null) null else {
    // first_value keeps Some(v) while folding, to tell "null seen first" from "nothing seen".
    val out = merged.map { case Some(v) => v; case v => v }
    // The newest kind is the row's kind unless it removed the key; an aggregated row is never dropped for it.
    out(KeyValue.KindOrdinal) = if (deleted) KeyValue.Delete else KeyValue.Insert
    new GenericInternalRow(out)
  }
}
