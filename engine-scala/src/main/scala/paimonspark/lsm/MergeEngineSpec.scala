package paimonspark.lsm

import org.apache.spark.sql.types.StructType

import paimonspark.UnsupportedFeatureException

/**
 * A table's merge engine and its options, resolved and checked once on the driver, and turned
 * into an engine for the columns a read actually merges.
 */
final case class MergeEngineSpec(
    engine: String,
    ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean,
    aggregateFunctions: Map[String, String]) {

  /** An engine over rows of `schema` (sequence, kind, key columns at `keyOrdinals`, values). */
  def create(schema: StructType, keyOrdinals: Seq[Int]): MergeEngine = {
    val system = Set(KeyValue.SequenceOrdinal, KeyValue.KindOrdinal) ++ keyOrdinals
    val values = schema.indices.filterNot(system.contains)
    engine match {
      case "deduplicate" => new DeduplicateEngine(ignoreDelete)
      case "partial-update" => new PartialUpdateEngine(schema, values, ignoreDelete, removeRecordOnDelete)
      case "aggregation" =>
        val aggregators = values.map { i =>
          val column = schema(i).name
          i -> Aggregator(aggregateFunctions.getOrElse(column, Aggregator.Default), column, schema(i).dataType)
        }.toMap
        new AggregationEngine(schema, aggregators, ignoreDelete)
    }
  }
}

object MergeEngineSpec {
  private val AggregateFunction = "fields\\.(.+)\\.aggregate-function".r

  def fromOptions(table: String, options: Map[String, String]): MergeEngineSpec = {
    val engine = options.getOrElse("merge-engine", "deduplicate").trim.toLowerCase
    def flag(key: String) = options.get(key).exists(_.trim.equalsIgnoreCase("true"))
    def refuse(what: String) = throw new UnsupportedFeatureException(
      s"table $table uses $what; reading it is not supported yet")
    if (!Set("deduplicate", "partial-update", "aggregation").contains(engine)) refuse(s"merge-engine=$engine")
    options.keys.toSeq.sorted.foreach {
      case AggregateFunction(_) if engine == "aggregation" => ()
      case k if k.startsWith("fields.") => refuse(s"the option '$k'")
      case k @ ("sequence.field" | "aggregation.remove-record-on-delete") => refuse(s"the option '$k'")
      case "deletion-vectors.enabled" if flag("deletion-vectors.enabled") => refuse("deletion vectors")
      case _ => ()
    }
    val functions = options.collect { case (AggregateFunction(column), f) => column -> f }
    MergeEngineSpec(engine, flag("ignore-delete"), flag("partial-update.remove-record-on-delete"), functions)
  }
}
