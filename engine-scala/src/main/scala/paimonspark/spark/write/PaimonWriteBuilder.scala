package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.filter.{AlwaysTrue, Predicate => SparkPredicate}
import org.apache.spark.sql.connector.write._

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.SparkTable
import paimonspark.spark.read.{FilterConverter, V2Filters}
import paimonspark.table.{OverwriteScope, Predicate}

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

  override def canOverwrite(predicates: Array[SparkPredicate]): Boolean = predicates.forall(p =>
    p.isInstanceOf[AlwaysTrue] || V2Filters.toV1(p).exists(f => f.references.forall(schema.partitionKeys.contains)))

  override def overwrite(predicates: Array[SparkPredicate]): WriteBuilder = {
    val filters = predicates.filterNot(_.isInstanceOf[AlwaysTrue])
    scope = Some(if (filters.isEmpty) OverwriteScope.WholeTable else {
      val converter = new FilterConverter(schema)
      val converted = filters.map(p => V2Filters.toV1(p).flatMap(converter.convert(_)).getOrElse(
        throw new UnsupportedFeatureException(s"table ${table.name()}: cannot overwrite rows matching $p; " +
          "overwrite filters may only compare partition columns with values")))
      OverwriteScope.Matching(converted.reduce(Predicate.And))
    })
    this
  }

  override def build(): Write = new PaimonWrite(table, scope, queryId)
}
