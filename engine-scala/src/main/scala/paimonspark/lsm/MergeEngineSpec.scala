package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, Descending, InterpretedOrdering, SortOrder}
import org.apache.spark.sql.types.StructType

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, SparkTypes, TableSchema}

/**
 * A table's merge engine and its options, resolved and checked once on the driver (at CREATE, and
 * again before any read or write), then turned into engines and orderings over the rows actually
 * merged.
 */
final case class MergeEngineSpec(
    engine: String,
    ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean,
    aggregateFunctions: Map[String, String],
    sequenceFields: Seq[String],
    sequenceDescending: Boolean) {

  /**
   * An engine over rows of `schema` (sequence, kind, then columns). Columns at `fixedOrdinals`
   * (key, partition, bucket) are the same in every version and are not merged.
   */
  def create(schema: StructType, fixedOrdinals: Seq[Int]): MergeEngine = {
    val system = Set(KeyValue.SequenceOrdinal, KeyValue.KindOrdinal) ++ fixedOrdinals
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

  /** Orders the versions of one key, oldest first: by `sequence.field` if set, then `_SEQUENCE_NUMBER`. */
  def versionOrdering(schema: StructType): Ordering[InternalRow] =
    if (sequenceFields.isEmpty) KeyValue.bySequence
    else {
      val direction = if (sequenceDescending) Descending else Ascending
      val user = new InterpretedOrdering(sequenceFields.map { f =>
        val i = schema.fieldIndex(f)
        SortOrder(BoundReference(i, schema(i).dataType, nullable = true), direction)
      })
      (a: InternalRow, b: InternalRow) => {
        val c = user.compare(a, b)
        if (c != 0) c else KeyValue.bySequence.compare(a, b)
      }
    }
}

object MergeEngineSpec {
  val Engines: Set[String] = Set("deduplicate", "partial-update", "aggregation")
  private val AggregateFunction = "fields\\.(.+)\\.aggregate-function".r

  /** The spec of a table, checked against its columns; throws naming the table and option at fault. */
  def of(table: String, schema: TableSchema): MergeEngineSpec = {
    val options = schema.options
    val engine = options.getOrElse("merge-engine", "deduplicate").trim.toLowerCase
    def flag(key: String) = options.get(key).exists(_.trim.equalsIgnoreCase("true"))
    def refuse(what: String) = throw new UnsupportedFeatureException(s"table $table uses $what, which is not supported yet")
    if (!Engines.contains(engine)) {
      if (engine == "first-row") refuse("merge-engine=first-row")
      throw new InvalidOptionException("merge-engine",
        s"table $table: merge-engine must be one of ${Engines.toSeq.sorted.mkString(", ")}, first-row, not '$engine'")
    }
    options.keys.toSeq.sorted.foreach {
      case AggregateFunction(_) if engine == "aggregation" => ()
      case k if k.startsWith("fields.") => refuse(s"the option '$k'")
      case k @ "aggregation.remove-record-on-delete" => refuse(s"the option '$k'")
      case "deletion-vectors.enabled" if flag("deletion-vectors.enabled") => refuse("deletion vectors")
      case _ => ()
    }
    def column(option: String, name: String) = schema.fields.find(_.name == name).getOrElse(
      throw new InvalidOptionException(option, s"table $table: option '$option' names '$name', which is not a column"))
    val functions = options.collect { case (key @ AggregateFunction(c), f) =>
      val field = column(key, c)
      if (schema.primaryKeys.contains(c)) {
        throw new InvalidOptionException(key, s"table $table: '$c' is a primary-key column and cannot be aggregated")
      }
      Aggregator(f, c, SparkTypes.physicalType(field.dataType))
      c -> f
    }
    val sequence = options.get("sequence.field").toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    sequence.foreach { c =>
      if (!column("sequence.field", c).dataType.isInstanceOf[AtomicType]) {
        throw new InvalidOptionException("sequence.field", s"table $table: sequence field '$c' must have an atomic type")
      }
    }
    val descending = options.get("sequence.field.sort-order").map(_.trim.toLowerCase) match {
      case None | Some("ascending") => false
      case Some("descending") => true
      case Some(other) => throw new InvalidOptionException("sequence.field.sort-order",
        s"table $table: sequence.field.sort-order must be ascending or descending, not '$other'")
    }
    MergeEngineSpec(engine, flag("ignore-delete"), flag("partial-update.remove-record-on-delete"), functions,
      sequence, descending)
  }
}
