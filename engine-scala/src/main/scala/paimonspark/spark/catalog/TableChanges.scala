package paimonspark.spark.catalog

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.catalog.TableChange.{ColumnPosition, First => SparkFirst, After => SparkAfter}

import paimonspark.{SchemaChangeException, UnsupportedFeatureException}
import paimonspark.format.{DataType, DataTypes, SparkTypes}
import paimonspark.format.metadata.TableSchema
import paimonspark.spark.{ColumnDefaults, SparkSchemas}
import paimonspark.table.TableOptions
import paimonspark.table.schema.SchemaChange
import paimonspark.table.schema.SchemaChange._

/** Spark's ALTER TABLE changes as Paimon schema changes, the way Paimon's own Spark catalog maps them. */
object TableChanges {
  def toPaimon(table: String, schema: TableSchema, changes: Seq[TableChange]): Seq[SchemaChange] = {
    // Spark makes REPLACE COLUMNS a drop of every column and an add of the new ones: the new columns
    // would get new field ids, and every existing file would read as nulls.
    val dropped = changes.collect { case d: TableChange.DeleteColumn if d.fieldNames().length == 1 => d.fieldNames().head }
    if (schema.fieldNames.forall(dropped.contains)) {
      unsupported(table, "REPLACE COLUMNS (or dropping every column) is not supported: new columns would not read " +
        "the existing data; use RENAME COLUMN, ALTER COLUMN, DROP COLUMN and ADD COLUMN")
    }
    changes.flatMap {
      case s: TableChange.SetProperty if s.property() == "comment" => Seq(UpdateComment(Option(s.value())))
      case r: TableChange.RemoveProperty if r.property() == "comment" => Seq(UpdateComment(None))
      case s: TableChange.SetProperty => reserved(table, s.property()); Seq(SetOption(s.property(), s.value()))
      case r: TableChange.RemoveProperty => reserved(table, r.property()); Seq(RemoveOption(r.property()))
      case a: TableChange.AddColumn =>
        // Paimon keeps no default for the rows written before the column existed.
        Option(a.defaultValue()).foreach { d =>
          val column = a.fieldNames().mkString(".")
          throw new SchemaChangeException(table, column, s"table $table: Cannot add column [$column] with default value " +
            s"${d.getSql}. Add the column, then ALTER COLUMN $column SET DEFAULT ${d.getSql}")
        }
        Seq(AddColumn(a.fieldNames().toSeq, paimonType(a.fieldNames().last, a.dataType()).withNullable(a.isNullable),
          Option(a.comment()), position(a.position())))
      case r: TableChange.RenameColumn => Seq(RenameColumn(r.fieldNames().toSeq, r.newName()))
      // DROP COLUMN IF EXISTS of a column that is not there changes nothing.
      case d: TableChange.DeleteColumn =>
        Seq(DropColumn(d.fieldNames().toSeq)).filter(_ => !d.ifExists() || DataTypes.typeAt(schema.fields, d.fieldNames().toSeq).isDefined)
      case u: TableChange.UpdateColumnType =>
        Seq(UpdateColumnType(u.fieldNames().toSeq, paimonType(u.fieldNames().last, u.newDataType())))
      case u: TableChange.UpdateColumnNullability => Seq(UpdateColumnNullability(u.fieldNames().toSeq, u.nullable()))
      case u: TableChange.UpdateColumnComment => Seq(UpdateColumnComment(u.fieldNames().toSeq, Option(u.newComment())))
      case u: TableChange.UpdateColumnDefaultValue =>
        // DROP DEFAULT has no new default (an empty one in Spark's older field).
        val default = Option(u.newCurrentDefault()).map(_.getSql).filter(_.nonEmpty)
        val path = u.fieldNames().toSeq
        if (path.size > 1) unsupported(table, s"column '${path.mkString(".")}' is nested; only top-level columns have defaults")
        val dataType = DataTypes.typeAt(schema.fields, path).getOrElse(throw new SchemaChangeException(table,
          path.mkString("."), s"table $table: column '${path.mkString(".")}' does not exist"))
        default.foreach(ColumnDefaults.value(table, path.mkString("."), dataType, _))
        Seq(UpdateColumnDefault(path, default))
      case u: TableChange.UpdateColumnPosition =>
        // Paimon moves top-level columns only: moving a nested column moves the column holding it.
        Seq(UpdateColumnPosition(u.fieldNames().head, position(u.position()).get))
      case other => unsupported(table, s"ALTER TABLE ${other.getClass.getSimpleName} is not supported")
    }
  }

  private[spark] def paimonType(column: String, t: org.apache.spark.sql.types.DataType): DataType =
    SparkTypes.toPaimon(t, column, () => 0)

  private def position(p: ColumnPosition): Option[Position] = p match {
    case null => None
    case _: SparkFirst => Some(First)
    case a: SparkAfter => Some(After(a.column()))
  }

  private def reserved(table: String, key: String): Unit =
    if (key == TableOptions.PrimaryKey) unsupported(table, "Alter primary key is not supported; a table keeps the " +
      "primary key it was created with (create a new table and copy the rows)")
    else if (SparkSchemas.ReservedProperties(key)) unsupported(table, s"'$key' cannot be altered")

  private def unsupported(table: String, what: String): Nothing =
    throw new UnsupportedFeatureException(s"table $table: $what")
}
