package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.filter.{Predicate => SparkPredicate}
import org.apache.spark.sql.connector.write._

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.SparkTable
import paimonspark.table.write.OverwriteScope

/** Decides what a write replaces: nothing (append), everything, a static filter, or its own partitions. */
final class PaimonWriteBuilder(table: SparkTable, queryId: String)
    extends WriteBuilder with SupportsTruncate with SupportsOverwriteV2 with SupportsDynamicOverwrite {

  private var scope: Option[OverwriteScope] = None
  private val schema = table.store.schema

  override def truncate(): WriteBuilder = { scope = Some(OverwriteScope.WholeTable); this }

  override def overwriteDynamicPartitions(): WriteBuilder = {
    scope = Some(if (schema.partitionKeys.isEmpty) OverwriteScope.WholeTable else OverwriteScope.WrittenPartitions)
    this
  }

  override def canOverwrite(predicates: Array[SparkPredicate]): Boolean =
    PartitionPredicates.scope(schema, predicates).isDefined

  override def overwrite(predicates: Array[SparkPredicate]): WriteBuilder = {
    scope = Some(PartitionPredicates.scope(schema, predicates).getOrElse(
      throw new UnsupportedFeatureException(s"table ${table.name()}: cannot overwrite rows matching " +
        s"${predicates.mkString(" AND ")}; overwrite filters may only compare partition columns with values")))
    this
  }

  override def build(): Write = new PaimonWrite(table, scope.map(s => () => s), queryId, replacesPartitions = scope.isDefined)
}
