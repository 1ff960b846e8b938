package paimonspark.table.schema

import paimonspark.{CommitConflictException, InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, DataField, DataTypes, TablePaths}
import paimonspark.format.metadata.TableSchema
import paimonspark.lsm.MergeEngineSpec
import paimonspark.table.{FileStoreTable, KeyLayout, TableFeatures, TableOptions}
import paimonspark.table.options.PaimonOptions
import paimonspark.table.schema.SchemaChange._


/** Builds the first schema of a new table and the next version of an existing one. */
object SchemaChanges {

  /** Schema 0 of a new table, validated before anything is written. */
  def create(
      table: String,
      fields: Seq[DataField],
      partitionKeys: Seq[String],
      options: Map[String, String],
      comment: Option[String]): TableSchema = {
    val names = fields.map(_.name)
    names.groupBy(_.toLowerCase).collectFirst { case (_, dup) if dup.size > 1 =>
      throw new IllegalArgumentException(s"table $table: column '${dup.head}' is defined more than once")
    }
    val fromOption = options.get(TableOptions.Partition).map(_.split(",").map(_.trim).filter(_.nonEmpty).toSeq)
    val partitions = (partitionKeys, fromOption) match {
      case (Seq(), Some(p)) => p
      case (p, Some(o)) if o != p =>
        throw new InvalidOptionException(TableOptions.Partition,
          s"table $table: option 'partition'=${o.mkString(",")} contradicts PARTITIONED BY (${p.mkString(", ")})")
      case (p, _) => p
    }
    partitions.foreach { k =>
      val field = fields.find(_.name == k).getOrElse(
        throw new IllegalArgumentException(s"table $table: partition column '$k' is not a column of the table"))
      if (!field.dataType.isInstanceOf[AtomicType]) {
        throw new UnsupportedFeatureException(
          s"table $table: partition column '$k' has type ${field.dataType.sql}; only atomic types can partition a table")
      }
    }
    if (partitions.nonEmpty && partitions.size == fields.size) {
      throw new IllegalArgumentException(s"table $table: every column is a partition column; at least one must hold data")
    }
    val primaryKeys = options.get(TableOptions.PrimaryKey).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    val stored = PaimonOptions.canonical(options -- Seq(TableOptions.Partition, TableOptions.PrimaryKey, "path"))
    TableOptions.validate(stored)
    // Key columns are NOT NULL, as Paimon makes them whatever the DDL said.
    val keyed = fields.map(f => if (primaryKeys.contains(f.name)) f.copy(dataType = f.dataType.withNullable(false)) else f)
    val schema = TableSchema(
      id = 0,
      fields = keyed,
      highestFieldId = (fields.map(_.id) ++ fields.flatMap(f => DataTypes.nestedFieldIds(f.dataType))).maxOption.getOrElse(-1),
      partitionKeys = partitions,
      primaryKeys = primaryKeys,
      options = stored,
      comment = comment,
      timeMillis = System.currentTimeMillis())
    KeyLayout.of(table, schema)
    checkDeletionVectors(table, None, schema)
    TableFeatures.requireFormatsHold(table, schema)
    schema
  }

  /**
   * Applies `changes` in order as one new schema version, validated as a whole before it is
   * published. A schema another writer published meanwhile is taken as the base and the changes
   * are applied again on top of it, as Paimon does; a change that no longer applies there fails.
   * Errors call the table `name`. A table whose catalog keeps its schemas (REST) is altered by the
   * catalog, which is sent [[prepare]]'s changes.
   */
  def alter(table: FileStoreTable, name: String, requested: Seq[SchemaChange]): FileStoreTable = {
    if (table.hooks.snapshotCatalog.isDefined) {
      throw new UnsupportedFeatureException(s"table $name: its catalog keeps its schemas; alter it through the catalog")
    }
    val changes = canonical(name, table, requested)
    var attempt = 0
    while (attempt < 10) {
      val next = applied(name, table.schemaManager.latestOrFail(), changes)
      if (table.hooks.locked(table.schemaManager.publish(next))) {
        if (table.paths.branch == TablePaths.MainBranch) {
          try table.hooks.schemaChanged(table, next)
          catch { case e: Throwable => table.schemaManager.withdraw(next.id); throw e }
        }
        return new FileStoreTable(table.io, table.paths, next, hooks = table.hooks)
      }
      attempt += 1
    }
    throw new CommitConflictException(name, s"table $name: schema changed concurrently 10 times; ALTER TABLE gave up")
  }

  /**
   * The changes as a catalog that keeps the schemas is sent them (an option's fallback key read as the
   * option it stands for), once the schema they give on top of the table's latest passed every rule; nothing
   * is written.
   */
  def prepare(table: FileStoreTable, name: String, requested: Seq[SchemaChange]): Seq[SchemaChange] = {
    val changes = canonical(name, table, requested)
    applied(name, table.schemaManager.latestOrFail(), changes)
    changes
  }

  private def canonical(name: String, table: FileStoreTable, requested: Seq[SchemaChange]): Seq[SchemaChange] = {
    val changes = requested.map {
      case SetOption(k, v) => SetOption(PaimonOptions.get(k).fold(k)(_.key), v)
      case RemoveOption(k) => RemoveOption(PaimonOptions.get(k).fold(k)(_.key))
      case other => other
    }
    changes.foreach {
      case SetOption(k, _) if TableOptions.Immutable(k) => immutable(name, k)
      case RemoveOption(k) if TableOptions.Immutable(k) => immutable(name, k)
      case _ => ()
    }
    TableOptions.validate(changes.collect { case SetOption(k, v) => k -> v }.toMap)
    checkBucketChange(name, table.schema, changes)
    changes
  }

  /**
   * A fixed bucket count may change, as in Paimon: files keep the count they were written with
   * (`_TOTAL_BUCKETS`), and `rescale` or INSERT OVERWRITE rewrites a partition to the new one. A
   * dynamic-bucket table (-1) has no count to change, and no table can become one.
   */
  private def checkBucketChange(table: String, schema: TableSchema, changes: Seq[SchemaChange]): Unit =
    changes.foreach {
      case SetOption(TableOptions.Bucket, value) =>
        if (TableOptions(schema.options).bucket == -1) {
          throw new UnsupportedFeatureException(feature = TableOptions.Bucket,
            message = s"table $table: Cannot change bucket when it is -1.")
        }
        if (value.trim == "-1") {
          throw new UnsupportedFeatureException(feature = TableOptions.Bucket, message = s"table $table: Cannot change bucket to -1.")
        }
      case RemoveOption(TableOptions.Bucket) =>
        throw new UnsupportedFeatureException(feature = TableOptions.Bucket, message = s"table $table: Cannot reset bucket.")
      case _ => ()
    }

  private def immutable(table: String, key: String): Nothing =
    throw new UnsupportedFeatureException(feature = key, message = s"table $table: option '$key' cannot be changed after the table is created")

  private def applied(name: String, current: TableSchema, changes: Seq[SchemaChange]): TableSchema = {
    val columns = new ColumnChanges(name, current)
    val next = changes.foldLeft(current) { (schema, change) =>
      change match {
        case SetOption(k, v) => schema.copy(options = schema.options + (k -> v))
        case RemoveOption(k) => schema.copy(options = schema.options - k)
        case UpdateComment(c) => schema.copy(comment = c)
        case r @ RenameColumn(Seq(column), newName) =>
          val renamed = (c: String) => if (c == column) newName else c
          schema.copy(fields = columns(schema.fields, r), primaryKeys = schema.primaryKeys.map(renamed),
            options = RenamedOptions(schema.options, renamed))
        case c => schema.copy(fields = columns(schema.fields, c))
      }
    }.copy(id = current.id + 1, highestFieldId = columns.highestFieldId, timeMillis = System.currentTimeMillis())
    KeyLayout.of(name, next)
    if (next.primaryKeys.nonEmpty) MergeEngineSpec.of(name, next)
    checkDeletionVectors(name, Some(current), next)
    TableFeatures.requireFormatsHold(name, next)
    next
  }

  /**
   * Paimon's rules for deletion vectors: not with the first-row engine (nothing old is ever deleted)
   * nor the full-compaction producer, and switched on or off after creation only with
   * `deletion-vectors.modifiable`.
   */
  private def checkDeletionVectors(name: String, before: Option[TableSchema], next: TableSchema): Unit = {
    val options = TableOptions(next.options)
    val key = TableOptions.DeletionVectors
    before.map(b => TableOptions(b.options).deletionVectors).filter(_ != options.deletionVectors).foreach { was =>
      if (!options.deletionVectorsModifiable) {
        throw new UnsupportedFeatureException(feature = key, message = s"table $name: cannot change deletion vectors " +
          s"mode from $was to ${!was}: without a full compaction first, readers could see a key twice; if you are " +
          "confident, set 'deletion-vectors.modifiable' = 'true' to allow it")
      }
    }
    if (options.deletionVectors && next.primaryKeys.nonEmpty) {
      if (MergeEngineSpec.of(name, next).engine == "first-row") {
        throw new InvalidOptionException(key, s"table $name: the first-row merge engine does not need deletion " +
          "vectors, as no old row is ever deleted")
      }
      if (!Set("none", "input", "lookup")(options.changelogProducer)) {
        throw new InvalidOptionException(key, s"table $name: deletion vectors work with the none, input and lookup " +
          s"changelog producers, not '${options.changelogProducer}'")
      }
    }
  }
}

/** Options naming columns, with a renamed column's name changed in their keys and values. */
private object RenamedOptions {
  private val ColumnListValues = Set(TableOptions.BucketKey, "sequence.field")
  private val FieldKey = """fields\.(.+)\.([^.]+)""".r

  def apply(options: Map[String, String], renamed: String => String): Map[String, String] = {
    def list(v: String) = v.split(",").map(c => renamed(c.trim)).mkString(",")
    options.map {
      case (k, v) if ColumnListValues(k) => k -> list(v)
      case (FieldKey(columns, "sequence-group"), v) => s"fields.${list(columns)}.sequence-group" -> list(v)
      case (FieldKey(columns, option), v) => s"fields.${list(columns)}.$option" -> v
      case other => other
    }
  }
}
