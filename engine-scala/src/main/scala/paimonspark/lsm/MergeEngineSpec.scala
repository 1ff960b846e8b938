package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, Descending, InterpretedOrdering, NullsFirst, SortOrder}
import org.apache.spark.sql.types.{DataType, StructType}

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, SparkTypes}
import paimonspark.format.metadata.TableSchema

/**
 * A table's merge engine and its options, resolved and checked once on the driver (at CREATE, and
 * again before any read or write), then turned into engines and orderings over the rows actually
 * merged. `columnOptions` holds each column's `fields.<column>.*` options without the prefix.
 * `removeRecordOnDelete`: a -D removes the key (`partial-update.remove-record-on-delete`,
 * `aggregation.remove-record-on-delete`); `removeOnSequenceGroups`: so does a -D that is not older in
 * one of these sequence groups (its sequence fields, `partial-update.remove-record-on-sequence-group`).
 * `lookupMerge`: the table looks keys up (a `lookup` changelog, deletion vectors, `force-lookup`),
 * so every merge takes a key's level-0 versions with the lowest version above level 0 alone, as
 * Paimon's `LookupMergeFunction` (not for first-row, whose readers skip level 0 and merge nothing).
 */
final case class MergeEngineSpec(
    engine: String,
    ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean,
    columnOptions: Map[String, Map[String, String]],
    defaultAggregate: Option[String],
    sequenceFields: Seq[String],
    sequenceDescending: Boolean,
    sequenceGroups: Seq[SequenceGroup],
    removeOnSequenceGroups: Seq[String] = Nil,
    lookupMerge: Boolean = false) {

  /** Whether a -D row holding only its key removes the key (else a DELETE rewrites files). */
  def deletesByRetraction: Boolean = engine == "deduplicate" || removeRecordOnDelete

  /** Whether the merged version of a key is always one of its versions, unchanged. */
  def resultIsAVersion: Boolean = engine == "deduplicate" || engine == "first-row"

  /** The columns a merge must read besides the ones a query asks for. */
  def orderingFields: Seq[String] = (sequenceFields ++ sequenceGroups.flatMap(_.sequenceFields)).distinct

  private def configuredFunction(column: String): Option[String] =
    columnOptions.get(column).flatMap(_.get("aggregate-function")).orElse(defaultAggregate)

  /** The aggregate function of a value column of the aggregation engine. */
  def aggregateFunction(column: String): String =
    if (sequenceFields.contains(column)) "last_value" else configuredFunction(column).getOrElse(Aggregator.Default)

  /**
   * The aggregate function of a partial-update column, which Paimon applies only to columns a
   * sequence group protects (elsewhere the only one allowed, last_non_null_value, is what
   * partial-update does anyway); never to a group's sequence columns.
   */
  def groupAggregateFunction(column: String): Option[String] =
    if (!sequenceGroups.exists(_.fields.contains(column))) None else configuredFunction(column)

  private def aggregator(column: String, function: String, dataType: DataType): Aggregator =
    Aggregator(function, column, dataType, columnOptions.getOrElse(column, Map.empty))

  /**
   * An engine over rows of `schema` (sequence, kind, then columns). Columns at `fixedOrdinals`
   * (key, partition, bucket) are the same in every version and are not merged.
   */
  def create(schema: StructType, fixedOrdinals: Seq[Int]): MergeEngine = {
    val system = Set(KeyValue.SequenceOrdinal, KeyValue.KindOrdinal) ++ fixedOrdinals
    val values = schema.indices.filterNot(system.contains)
    engine match {
      case "deduplicate" => new DeduplicateEngine(ignoreDelete)
      case "first-row" => new FirstRowEngine(ignoreDelete)
      case "partial-update" =>
        val aggregators = values.flatMap { i =>
          groupAggregateFunction(schema(i).name).map(f => i -> aggregator(schema(i).name, f, schema(i).dataType))
        }.toMap
        new PartialUpdateEngine(schema, values, ignoreDelete, removeRecordOnDelete, sequenceGroups, aggregators,
          removeOnSequenceGroups.toSet)
      case "aggregation" =>
        val aggregators = values.map(i => i -> aggregator(schema(i).name, aggregateFunction(schema(i).name),
          schema(i).dataType)).toMap
        new AggregationEngine(schema, aggregators, ignoreDelete, removeRecordOnDelete)
    }
  }

  /**
   * Orders the versions of one key, oldest first: by `sequence.field` if set (a null is oldest in
   * either direction, as in Paimon), then `_SEQUENCE_NUMBER`.
   */
  def versionOrdering(schema: StructType): Ordering[InternalRow] =
    if (sequenceFields.isEmpty) KeyValue.bySequence
    else {
      val direction = if (sequenceDescending) Descending else Ascending
      val user = new InterpretedOrdering(sequenceFields.map { f =>
        val i = schema.fieldIndex(f)
        SortOrder(BoundReference(i, schema(i).dataType, nullable = true), direction, NullsFirst, Seq.empty)
      })
      (a: InternalRow, b: InternalRow) => {
        val c = user.compare(a, b)
        if (c != 0) c else KeyValue.bySequence.compare(a, b)
      }
    }
}

object MergeEngineSpec {
  val Engines: Seq[String] = Seq("deduplicate", "partial-update", "aggregation", "first-row")
  /** The `fields.<column>.<option>` options this engine implements. */
  val ColumnOptions: Set[String] = Set("aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter")
  private val ColumnOption = "fields\\.(.+)\\.([a-z-]+)".r
  private val DefaultAggregate = "fields.default-aggregate-function"

  /** The spec of a table, checked against its columns; throws naming the table and option at fault. */
  def of(table: String, schema: TableSchema): MergeEngineSpec = {
    val options = schema.options
    val engine = options.getOrElse("merge-engine", "deduplicate").trim.toLowerCase
    def flag(key: String) = options.get(key).exists(_.trim.equalsIgnoreCase("true"))
    def refuse(what: String) = throw new UnsupportedFeatureException(s"table $table uses $what, which is not supported yet")
    def invalid(key: String, message: String) = throw new InvalidOptionException(key, s"table $table: $message")
    if (!Engines.contains(engine)) invalid("merge-engine", s"merge-engine must be one of ${Engines.mkString(", ")}, not '$engine'")
    def column(option: String, name: String) = schema.fields.find(_.name == name)
      .getOrElse(invalid(option, s"option '$option' names '$name', which is not a column"))

    val groups = Seq.newBuilder[SequenceGroup]
    val perColumn = scala.collection.mutable.Map.empty[String, Map[String, String]]
    options.keys.toSeq.sorted.foreach {
      case DefaultAggregate if engine == "aggregation" || engine == "partial-update" => ()
      case key @ ColumnOption(names, "sequence-group") if engine == "partial-update" =>
        val sequence = names.split(",").map(_.trim).toSeq
        val fields = options(key).split(",").map(_.trim).filter(_.nonEmpty).toSeq
        (sequence ++ fields).foreach(column(key, _))
        groups += SequenceGroup(sequence, fields)
      case key @ ColumnOption(c, option)
          if (engine == "aggregation" || engine == "partial-update") && ColumnOptions.contains(option) =>
        column(key, c)
        if (schema.primaryKeys.contains(c)) invalid(key, s"'$c' is a primary-key column and cannot be aggregated")
        perColumn(c) = perColumn.getOrElse(c, Map.empty) + (option -> options(key))
      case k if k.startsWith("fields.") => refuse(s"the option '$k'")
      case _ => ()
    }
    val sequenceGroups = groups.result()
    sequenceGroups.flatMap(g => g.sequenceFields ++ g.fields).groupBy(identity).collectFirst {
      case (f, fs) if fs.size > 1 => invalid("fields.*.sequence-group", s"column '$f' belongs to more than one sequence group")
    }
    if (flag("partial-update.remove-record-on-delete") && (flag("ignore-delete") || sequenceGroups.nonEmpty)) {
      invalid("partial-update.remove-record-on-delete",
        "partial-update.remove-record-on-delete cannot be combined with ignore-delete or sequence groups")
    }
    val sequence = options.get("sequence.field").toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    if (sequence.nonEmpty && engine == "first-row") invalid("sequence.field", "the first-row engine takes no sequence.field")
    sequence.foreach { c =>
      if (!column("sequence.field", c).dataType.isInstanceOf[AtomicType]) {
        invalid("sequence.field", s"sequence field '$c' must have an atomic type")
      }
    }
    val descending = options.get("sequence.field.sort-order").map(_.trim.toLowerCase) match {
      case None | Some("ascending") => false
      case Some("descending") => true
      case Some(other) => invalid("sequence.field.sort-order", s"sequence.field.sort-order must be ascending or " +
        s"descending, not '$other'")
    }
    val removeOnGroups = options.get("partial-update.remove-record-on-sequence-group").toSeq.flatMap(_.split(","))
      .map(_.trim).filter(_.nonEmpty)
    if (removeOnGroups.nonEmpty) {
      val sequences = sequenceGroups.flatMap(_.sequenceFields).toSet
      removeOnGroups.filterNot(sequences).foreach { f =>
        invalid("partial-update.remove-record-on-sequence-group", s"field '$f' defined in " +
          "'partial-update.remove-record-on-sequence-group' option must be part of sequence groups")
      }
      if (flag("ignore-delete")) {
        invalid("partial-update.remove-record-on-sequence-group", "ignore-delete and " +
          "partial-update.remove-record-on-sequence-group have conflicting behavior so should not be enabled at the same time.")
      }
    }
    val removeOnDelete = flag(if (engine == "aggregation") "aggregation.remove-record-on-delete"
      else "partial-update.remove-record-on-delete")
    val looksKeysUp = options.get("changelog-producer").exists(_.trim.equalsIgnoreCase("lookup")) ||
      flag("deletion-vectors.enabled") || flag("force-lookup")
    val spec = MergeEngineSpec(engine, flag("ignore-delete"), removeOnDelete,
      perColumn.toMap, options.get(DefaultAggregate), sequence, descending, sequenceGroups,
      if (engine == "partial-update") removeOnGroups else Nil, lookupMerge = looksKeysUp && engine != "first-row")
    val values = schema.fields.filterNot(f => schema.primaryKeys.contains(f.name))
    // Build every aggregator once, so a function that does not fit its column fails at CREATE.
    if (engine == "aggregation") {
      values.foreach(f => spec.aggregator(f.name, spec.aggregateFunction(f.name), SparkTypes.physicalType(f.dataType)))
    }
    if (engine == "partial-update") {
      val groupSequences = sequenceGroups.flatMap(_.sequenceFields).toSet
      values.filterNot(f => groupSequences(f.name)).foreach { f =>
        val function = spec.configuredFunction(f.name)
        val protectedByGroup = sequenceGroups.exists(_.fields.contains(f.name))
        function.foreach { name =>
          if (!protectedByGroup && name.trim.toLowerCase != Aggregator.Default) {
            val key = if (perColumn.get(f.name).exists(_.contains("aggregate-function"))) s"fields.${f.name}.aggregate-function"
              else DefaultAggregate
            invalid(key, s"$key: aggregate function '$name' of column '${f.name}' needs a sequence group protecting that " +
              "column (fields.<sequence column>.sequence-group), as Paimon requires")
          }
          if (protectedByGroup) spec.aggregator(f.name, name, SparkTypes.physicalType(f.dataType))
        }
      }
    }
    spec
  }
}
