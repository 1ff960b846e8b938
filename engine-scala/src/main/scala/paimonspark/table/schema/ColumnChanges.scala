package paimonspark.table.schema

import paimonspark.SchemaChangeException
import paimonspark.format.{ArrayType, DataField, DataType, MapType, MultisetType, RowType}
import paimonspark.format.metadata.TableSchema
import paimonspark.table.schema.SchemaChange._

/**
 * Applies column changes to a schema by Paimon's rules: fields keep their ids through renames,
 * moves and type changes; an added column takes the next id, then its nested fields theirs,
 * children before parents; partition and primary-key columns are neither dropped nor renamed nor
 * retyped; type changes are the casts [[TypeCasts]] allows. Each refusal names the table and column.
 */
final class ColumnChanges(table: String, old: TableSchema) {
  private val explicitCasts = !old.options.get("disable-explicit-type-casting").exists(_.trim.equalsIgnoreCase("true"))
  private val notNullRefused = !old.options.get("alter-column-null-to-not-null.disabled").exists(_.trim.equalsIgnoreCase("false"))

  private var highest = old.highestFieldId

  /** `fields` changed by `change`; `keys` are renamed as their columns are, by the caller. */
  def apply(fields: Seq[DataField], change: SchemaChange): Seq[DataField] = change match {
    case AddColumn(path, dataType, comment, position) =>
      if (!dataType.nullable) refuse(path, "cannot be added as NOT NULL: rows written before have no value for it")
      highest += 1
      val id = highest
      val added = DataField(id, path.last, reassignIds(dataType), comment)
      ColumnNames.check(table, path.last)
      level(fields, path) { siblings =>
        if (siblings.exists(_.name == path.last)) refuse(path, "already exists")
        position match {
          case None => siblings :+ added
          case Some(First) => added +: siblings
          case Some(After(ref)) => siblings.patch(indexOf(siblings, path.init :+ ref) + 1, Seq(added), 0)
        }
      }

    case RenameColumn(path, newName) =>
      if (path.size == 1 && old.partitionKeys.contains(path.head)) refuse(path, "is a partition column and cannot be renamed")
      ColumnNames.check(table, newName)
      level(fields, path) { siblings =>
        if (siblings.exists(_.name == newName)) refuse(path.init :+ newName, "already exists")
        val i = indexOf(siblings, path)
        siblings.updated(i, siblings(i).copy(name = newName))
      }

    case DropColumn(path) =>
      if (path.size == 1 && (old.partitionKeys ++ old.primaryKeys).contains(path.head)) {
        refuse(path, "is a partition or primary-key column and cannot be dropped")
      }
      level(fields, path) { siblings =>
        val rest = siblings.patch(indexOf(siblings, path), Nil, 1)
        if (rest.isEmpty) refuse(path, "is the last column " + (if (path.size == 1) "of the table" else "of its struct") +
          " and cannot be dropped")
        rest
      }

    case UpdateColumnType(path, dataType) =>
      if (path.size == 1 && old.partitionKeys.contains(path.head)) refuse(path, "is a partition column and cannot change type")
      if (path.size == 1 && old.primaryKeys.contains(path.head)) refuse(path, "is a primary-key column and cannot change type")
      typeAt(fields, path) { current =>
        val next = dataType.withNullable(current.nullable)
        if (!TypeCasts.allowed(current, next, explicitCasts)) {
          refuse(path, s"cannot change type from ${current.sql} to ${next.sql}" +
            (if (explicitCasts) ": Paimon has no cast between them"
            else ": only widening changes are allowed while 'disable-explicit-type-casting' is true"))
        }
        next
      }

    case UpdateColumnNullability(path, nullable) =>
      if (path.size == 1 && nullable && old.primaryKeys.contains(path.head)) refuse(path, "is a primary-key column and stays NOT NULL")
      typeAt(fields, path) { current =>
        if (current.nullable && !nullable && notNullRefused) {
          refuse(path, "cannot become NOT NULL: rows written before may hold nulls " +
            "(set 'alter-column-null-to-not-null.disabled' = 'false' to allow it)")
        }
        current.withNullable(nullable)
      }

    case UpdateColumnComment(path, comment) => field(fields, path)(_.copy(description = comment))

    case UpdateColumnDefault(path, default) => field(fields, path)(_.copy(defaultValue = default))

    case UpdateColumnPosition(column, position) =>
      val i = indexOf(fields, Seq(column))
      val field = fields(i)
      val target = position match {
        case First if i == 0 => refuse(Seq(column), "is already the first column")
        case First => 0
        case After(ref) if ref == column => refuse(Seq(column), "cannot be moved after itself")
        case After(ref) => val r = indexOf(fields, Seq(ref)); if (i > r) r + 1 else r
      }
      fields.patch(i, Nil, 1).patch(target, Seq(field), 0)

    case other => throw new IllegalArgumentException(s"not a column change: $other")
  }

  def highestFieldId: Int = highest

  /** Fresh ids for the nested fields of an added column's type: each field's children first. */
  private def reassignIds(t: DataType): DataType = t match {
    case r: RowType => r.copy(fields = r.fields.map { f =>
      val nested = reassignIds(f.dataType)
      highest += 1
      f.copy(id = highest, dataType = nested)
    })
    case a: ArrayType => a.copy(element = reassignIds(a.element))
    case m: MultisetType => m.copy(element = reassignIds(m.element))
    case m: MapType => m.copy(key = reassignIds(m.key), value = reassignIds(m.value))
    case other => other
  }

  /** `fields` with the list of fields holding `path`'s last column changed by `change`. */
  private def level(fields: Seq[DataField], path: Seq[String])(change: Seq[DataField] => Seq[DataField]): Seq[DataField] =
    if (path.size == 1) change(fields)
    else typeAt(fields, path.init) {
      case r: RowType => r.copy(fields = change(r.fields))
      case other => refuse(path.init, s"has type ${other.sql}, which has no nested columns")
    }

  /** `fields` with the field at `path` changed by `change`. */
  private def field(fields: Seq[DataField], path: Seq[String])(change: DataField => DataField): Seq[DataField] =
    level(fields, path) { siblings =>
      val i = indexOf(siblings, path)
      siblings.updated(i, change(siblings(i)))
    }

  /** `fields` with the type at `path` (through arrays' elements and maps' values) changed by `change`. */
  private def typeAt(fields: Seq[DataField], path: Seq[String], depth: Int = 1)(change: DataType => DataType)
      : Seq[DataField] = {
    val i = indexOf(fields, path.take(depth))
    val field = fields(i)
    def inside(t: DataType, at: Int): DataType =
      if (at == path.size) change(t)
      else t match {
        case a: ArrayType => a.copy(element = inside(a.element, at + 1))
        case m: MapType => m.copy(value = inside(m.value, at + 1))
        case r: RowType => r.copy(fields = typeAt(r.fields, path, at + 1)(change))
        case other => refuse(path.take(at), s"has type ${other.sql}, which has no nested columns")
      }
    fields.updated(i, field.copy(dataType = inside(field.dataType, depth)))
  }

  private def indexOf(fields: Seq[DataField], path: Seq[String]): Int = {
    val i = fields.indexWhere(_.name == path.last)
    if (i < 0) refuse(path, "does not exist")
    i
  }

  private def refuse(path: Seq[String], why: String): Nothing =
    throw new SchemaChangeException(table, path.mkString("."), s"table $table: column '${path.mkString(".")}' $why")
}

/** Column names Paimon keeps for itself. */
object ColumnNames {
  private val Reserved = Set("_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID")

  def check(table: String, name: String): Unit =
    if (Reserved(name) || name.startsWith("_KEY_")) {
      throw new SchemaChangeException(table, name, s"table $table: column '$name' has a name Paimon reserves " +
        "(_SEQUENCE_NUMBER, _VALUE_KIND, _LEVEL, rowkind, _ROW_ID and names starting with _KEY_ are)")
    }
}
