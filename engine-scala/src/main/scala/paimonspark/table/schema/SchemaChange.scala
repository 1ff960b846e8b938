package paimonspark.table.schema

import paimonspark.format.DataType

/**
 * One change to a table's schema, as an ALTER TABLE statement states it. A `path` names a column,
 * a nested one through its parents, with one extra segment (`element`, `value`) for each array or
 * map on the way, as Paimon's and Spark's paths do.
 */
sealed trait SchemaChange

object SchemaChange {
  final case class SetOption(key: String, value: String) extends SchemaChange
  final case class RemoveOption(key: String) extends SchemaChange
  final case class UpdateComment(comment: Option[String]) extends SchemaChange
  final case class AddColumn(path: Seq[String], dataType: DataType, comment: Option[String], position: Option[Position])
      extends SchemaChange
  final case class RenameColumn(path: Seq[String], newName: String) extends SchemaChange
  final case class DropColumn(path: Seq[String]) extends SchemaChange
  /** A new type for a column; its nullability stays as it is, as Paimon's Spark catalog does it. */
  final case class UpdateColumnType(path: Seq[String], dataType: DataType) extends SchemaChange
  final case class UpdateColumnNullability(path: Seq[String], nullable: Boolean) extends SchemaChange
  final case class UpdateColumnComment(path: Seq[String], comment: Option[String]) extends SchemaChange
  /** A column's default as SQL text (`'Bob'`, `5`), or none: Paimon's `updateColumnDefaultValue`. */
  final case class UpdateColumnDefault(path: Seq[String], default: Option[String]) extends SchemaChange
  /** Moves a top-level column, the only kind Paimon moves. */
  final case class UpdateColumnPosition(column: String, position: Position) extends SchemaChange

  sealed trait Position
  case object First extends Position
  final case class After(column: String) extends Position
}
