package paimonspark.table.scan

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import paimonspark.format.SparkTypes
import paimonspark.format.metadata.TableSchema
import paimonspark.table.{ColumnRange, Predicate, RangeFilter, ValueOrdering}

/**
 * Predicates over a table's columns evaluated on partition values, which are known exactly: a
 * partition column's range is its value. Columns that are not partition columns are unknown.
 */
final class PartitionFilter(schema: TableSchema) {
  /** Table field index to partition row index. */
  val partitionIndex: Map[Int, Int] =
    schema.partitionKeys.zipWithIndex.map { case (k, i) => schema.fieldNames.indexOf(k) -> i }.toMap

  val ranges: RangeFilter = new RangeFilter(i => ValueOrdering.of(schema.fields(i).dataType))

  /** The range of table field `i` in a file of `partition` holding `rowCount` rows. */
  def range(partition: GenericInternalRow, rowCount: Long)(i: Int): ColumnRange = partitionIndex.get(i) match {
    case Some(p) =>
      val v = partition.values(p)
      ColumnRange(v, v, Some(if (v == null) rowCount else 0L), rowCount)
    case None => ColumnRange.unknown(rowCount)
  }

  def mayMatch(filter: Predicate, partition: GenericInternalRow): Boolean =
    ranges.mayMatch(filter, range(partition, 1L))
}

object PartitionFilter {
  /** Exactly these partitions (rows of partition values), as a filter on the table; none matches nothing. */
  def exactly(schema: TableSchema, partitions: Seq[InternalRow]): Predicate = partitions.map { row =>
    schema.partitionKeys.indices.map { i =>
      val field = schema.fieldNames.indexOf(schema.partitionKeys(i))
      if (row.isNullAt(i)) Predicate.IsNull(field)
      else Predicate.Compare(Predicate.Eq, field, row.get(i, SparkTypes.physicalType(schema.fields(field).dataType)))
    }.reduce[Predicate](Predicate.And)
  }.reduceOption[Predicate](Predicate.Or).getOrElse(Predicate.Constant(false))
}
