package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException

/**
 * Paimon's `partial-update` engine: each value column takes the newest non-null value of the key.
 *  - Sequence groups: a group's columns are set together (nulls included) by the version with the
 *    highest group sequence; a retraction that is not older clears them. Columns outside groups
 *    keep the newest non-null value and ignore retractions.
 *  - A grouped column with an aggregate function (`aggregators`) folds every version instead:
 *    newer ones by the function, older ones as [[Aggregator.addOlder]]; retractions, older or not,
 *    are taken back out by the function.
 *  - Without groups, retractions are skipped with `ignore-delete`; with
 *    `partial-update.remove-record-on-delete` a -D removes the row so far and becomes the result, so
 *    it hides older files' versions, and -U is skipped. Any other retraction is an error, as in Paimon.
 *  - With `partial-update.remove-record-on-sequence-group`, a -D that is not older in one of those
 *    groups (`removeOnGroups`, by their sequence fields) removes the row so far in the same way.
 * A removed row's values are the -D's, from which later versions go on, as in Paimon. A key that saw
 * only retractions merges into a -D version.
 */
final class PartialUpdateEngine(schema: StructType, valueOrdinals: Seq[Int], ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean, groups: Seq[SequenceGroup], aggregators: Map[Int, Aggregator],
    removeOnGroups: Set[String] = Set.empty) extends MergeEngine {
  private val bound = groups.map(new BoundSequenceGroup(_, schema))
  private val removing = groups.zip(bound).collect { case (g, b) if g.sequenceFields.exists(removeOnGroups) => b }
  private val grouped: Set[Int] = bound.flatMap(g => g.sequenceOrdinals ++ g.fieldOrdinals).toSet
  private val isPlainValue: Array[Boolean] = Array.tabulate(schema.length)(i => valueOrdinals.contains(i) && !grouped(i))
  private val isValue: Array[Boolean] = Array.tabulate(schema.length)(valueOrdinals.contains)
  private var merged: Array[Any] = _
  private var deletion: InternalRow = _
  private var sawInsert = false

  override def reset(): Unit = {
    merged = null
    deletion = null
    sawInsert = false
  }

  private def value(row: InternalRow, i: Int): Any = if (row.isNullAt(i)) null else row.get(i, schema(i).dataType)

  override def add(row: InternalRow): Unit = {
    val retract = KeyValue.isRetract(row)
    if (retract && bound.isEmpty) {
      if (ignoreDelete) ()
      else if (removeRecordOnDelete) {
        if (KeyValue.kind(row) == KeyValue.Delete) remove(row)
      } else {
        throw new UnsupportedFeatureException("a partial-update table holds a retraction (-U/-D); Paimon only allows " +
          "that with ignore-delete, partial-update.remove-record-on-delete or sequence groups")
      }
    } else if (KeyValue.kind(row) == KeyValue.Delete && !ignoreDelete && removing.exists { g =>
        g.sequence(row).exists(incoming => merged == null || g.notOlder(incoming, g.sequenceOrdinals.map(merged(_)).toArray))
      }) {
      remove(row)
    } else if (!(retract && ignoreDelete)) {
      if (merged == null) merged = new Array[Any](schema.length)
      deletion = null
      if (!retract) sawInsert = true
      // Sequence, kind and key come from the newest version.
      (0 until schema.length).foreach { i =>
        if (!isValue(i) || (!retract && isPlainValue(i) && !row.isNullAt(i))) merged(i) = value(row, i)
      }
      bound.foreach { g =>
        g.sequence(row).foreach { incoming =>
          val newer = g.notOlder(incoming, g.sequenceOrdinals.map(merged(_)).toArray)
          if (newer) g.sequenceOrdinals.zip(incoming).foreach { case (i, v) => merged(i) = v }
          g.fieldOrdinals.foreach { i =>
            aggregators.get(i) match {
              case None => if (newer) merged(i) = if (retract) null else value(row, i)
              case Some(agg) =>
                val v = value(row, i)
                merged(i) = if (retract) agg.retract(merged(i), v) else if (newer) agg.add(merged(i), v)
                  else agg.addOlder(merged(i), v)
            }
          }
        }
      }
    }
  }

  private def remove(row: InternalRow): Unit = {
    merged = Array.tabulate[Any](schema.length)(value(row, _))
    deletion = row
  }

  override def result(): InternalRow =
    if (deletion != null) deletion
    else if (merged == null) null
    else {
      // first_value keeps Some(v) while folding, to tell "null seen first" from "nothing seen".
      val out = merged.map { case Some(v) => v; case v => v }
      out(KeyValue.KindOrdinal) = if (sawInsert) KeyValue.Insert else KeyValue.Delete
      new GenericInternalRow(out)
    }
}
