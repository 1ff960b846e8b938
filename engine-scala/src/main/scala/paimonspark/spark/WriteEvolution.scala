package paimonspark.spark

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.internal.SQLConf

import paimonspark.format.{AtomicType, DataType, DataTypes, TypeRoot}
import paimonspark.table.{FileStoreTable, TypeCasts}

/** What a write with schema evolution may change of a table's column types, by Paimon's merge rules. */
object WriteEvolution {
  /** Paimon's option allowing a write to change a column's type by more than a widening. */
  val ExplicitCastOption = "write.merge-schema.explicit-cast"

  private val Lengths: Set[TypeRoot] = Set(TypeRoot.Char, TypeRoot.VarChar, TypeRoot.Binary, TypeRoot.VarBinary)
  private val Precisions: Set[TypeRoot] = Set(TypeRoot.Timestamp, TypeRoot.TimestampLtz)

  def allowsTypeChange(table: FileStoreTable, change: TableChange.UpdateColumnType): Boolean = {
    // The session conf, as Paimon's connector reads it, before the table option.
    val explicit = Option(SQLConf.get.getConfString(s"spark.paimon.$ExplicitCastOption", null))
      .orElse(table.options.raw.get(ExplicitCastOption)).exists(_.trim.equalsIgnoreCase("true"))
    DataTypes.typeAt(table.schema.fields, change.fieldNames().toSeq).exists { current =>
      val next = TableChanges.paimonType(change.fieldNames().last, change.newDataType()).withNullable(current.nullable)
      TypeCasts.allowed(current, next, explicit) && (explicit || keepsSize(current, next))
    }
  }

  /**
   * Paimon's merge (unlike ALTER TABLE) keeps a decimal's scale, and without explicit casts never
   * shortens a length or lowers a precision.
   */
  private def keepsSize(current: DataType, next: DataType): Boolean = (current, next) match {
    case (c: AtomicType, n: AtomicType) if c.root == TypeRoot.Decimal && n.root == TypeRoot.Decimal =>
      c.scale == n.scale && n.precision >= c.precision
    case (c: AtomicType, n: AtomicType) if (Lengths(c.root) && Lengths(n.root)) || (Precisions(c.root) && Precisions(n.root)) =>
      n.precision >= c.precision
    case _ => true
  }
}
