package paimonspark.spark.write

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.internal.SQLConf

import paimonspark.format.{AtomicType, DataType, DataTypes, TypeRoot}
import paimonspark.spark.catalog.TableChanges
import paimonspark.table.{FileStoreTable, TableOptions}
import paimonspark.table.schema.TypeCasts

/** Whether a write evolves the schema, and which type changes it may make, by Paimon's merge rules. */
object WriteEvolution {
  private val Lengths: Set[TypeRoot] = Set(TypeRoot.Char, TypeRoot.VarChar, TypeRoot.Binary, TypeRoot.VarBinary)
  private val Precisions: Set[TypeRoot] = Set(TypeRoot.Timestamp, TypeRoot.TimestampLtz)

  /**
   * A `write.merge-schema*` switch as Paimon's Spark connector reads it: the write's own option
   * when it gives one, else the session conf `spark.paimon.<key>`, else the table option.
   */
  def switchedOn(key: String, table: FileStoreTable, writeOption: Option[String] = None): Boolean =
    writeOption.orElse(Option(SQLConf.get.getConfString(s"spark.paimon.$key", null)))
      .orElse(table.options.raw.get(key)).exists(_.trim.equalsIgnoreCase("true"))

  def allowsTypeChange(table: FileStoreTable, change: TableChange.UpdateColumnType): Boolean = {
    val explicit = switchedOn(TableOptions.WriteMergeSchemaExplicitCast, table)
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
