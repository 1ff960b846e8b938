package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.filter.{AlwaysTrue, Predicate => SparkPredicate}

import paimonspark.format.metadata.TableSchema
import paimonspark.spark.read.{FilterConverter, V2Filters}
import paimonspark.table.Predicate
import paimonspark.table.write.OverwriteScope

/**
 * Spark's predicates as the partitions they select, when they only compare partition columns with
 * values: what a static INSERT OVERWRITE replaces and a metadata-only DELETE drops.
 */
object PartitionPredicates {
  def scope(schema: TableSchema, predicates: Array[SparkPredicate]): Option[OverwriteScope] = {
    val filters = predicates.toSeq.filterNot(_.isInstanceOf[AlwaysTrue])
    val converter = new FilterConverter(schema)
    val converted = filters.map(p => V2Filters.toV1(p).filter(_.references.forall(schema.partitionKeys.contains))
      .flatMap(converter.convert(_)))
    if (converted.exists(_.isEmpty)) None
    else Some(converted.flatten.reduceOption(Predicate.And).fold[OverwriteScope](OverwriteScope.WholeTable)(OverwriteScope.Matching))
  }
}
