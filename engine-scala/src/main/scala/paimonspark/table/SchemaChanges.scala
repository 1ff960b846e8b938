package paimonspark.table

import paimonspark.{CommitConflictException, InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, DataField, DataTypes, TableSchema}

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
    val stored = options -- Seq(TableOptions.Partition, TableOptions.PrimaryKey, "path")
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
    schema
  }

  /**
   * Sets and removes options (and the comment), as ALTER TABLE SET/UNSET TBLPROPERTIES does, in a
   * new schema version.
   */
  def alterOptions(
      table: FileStoreTable,
      set: Map[String, String],
      remove: Set[String],
      comment: Option[String],
      removeComment: Boolean): FileStoreTable = {
    val name = table.location.toString
    (set.keySet ++ remove).find(TableOptions.Immutable.contains).foreach { k =>
      throw new UnsupportedFeatureException(s"table $name: option '$k' cannot be changed after the table is created")
    }
    TableOptions.validate(set)
    var attempt = 0
    while (attempt < 10) {
      val current = table.schemaManager.latestOrFail()
      val next = current.copy(id = current.id + 1, options = current.options ++ set -- remove,
        comment = if (removeComment) None else comment.orElse(current.comment), timeMillis = System.currentTimeMillis())
      KeyLayout.of(name, next)
      if (table.schemaManager.publish(next)) return new FileStoreTable(table.io, table.paths, next)
      attempt += 1
    }
    throw new CommitConflictException(s"table $name: schema changed concurrently 10 times; ALTER TABLE gave up")
  }
}
