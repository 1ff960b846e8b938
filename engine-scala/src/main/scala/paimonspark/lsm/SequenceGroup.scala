package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, GenericInternalRow, InterpretedOrdering, NullsFirst, SortOrder}
import org.apache.spark.sql.types.StructType

/**
 * A partial-update sequence group (`fields.<s1,s2>.sequence-group = a,b`): columns a and b are
 * updated together, by the version with the highest (s1, s2), nulls lowest, ties to the newer one.
 */
final case class SequenceGroup(sequenceFields: Seq[String], fields: Seq[String])

/** A sequence group bound to the ordinals of the rows an engine merges. */
final class BoundSequenceGroup(group: SequenceGroup, schema: StructType) {
  val sequenceOrdinals: Seq[Int] = group.sequenceFields.map(schema.fieldIndex)
  // Group columns a read does not ask for are not merged at all.
  val fieldOrdinals: Seq[Int] = group.fields.filter(schema.fieldNames.contains).map(schema.fieldIndex)
  private val types = sequenceOrdinals.map(schema(_).dataType)
  private val ordering = new InterpretedOrdering(types.indices.map(i =>
    SortOrder(BoundReference(i, types(i), nullable = true), Ascending, NullsFirst, Seq.empty)))

  /** The group's sequence values in `row`, or None when they are all null (the group is not set). */
  def sequence(row: InternalRow): Option[Array[Any]] = {
    val values = sequenceOrdinals.zip(types).map { case (i, t) => if (row.isNullAt(i)) null else row.get(i, t) }.toArray
    if (values.forall(_ == null)) None else Some(values)
  }

  /** Whether an incoming sequence is at least the stored one (which is all nulls before any version). */
  def notOlder(incoming: Array[Any], stored: Array[Any]): Boolean =
    ordering.gteq(new GenericInternalRow(incoming), new GenericInternalRow(stored))
}
