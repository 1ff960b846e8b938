package paimonspark.spark

import org.apache.spark.sql.connector.catalog.TableChange

import paimonspark.format.DataTypes
import paimonspark.table.{FileStoreTable, TypeCasts}

/** What a write with schema evolution may change of a table's column types, by Paimon's options. */
object WriteEvolution {
  /** Paimon's option allowing a write to change a column's type by more than a widening. */
  val ExplicitCastOption = "write.merge-schema.explicit-cast"

  def allowsTypeChange(table: FileStoreTable, change: TableChange.UpdateColumnType): Boolean = {
    val explicit = table.options.raw.get(ExplicitCastOption).exists(_.trim.equalsIgnoreCase("true"))
    DataTypes.typeAt(table.schema.fields, change.fieldNames().toSeq).exists { current =>
      val next = TableChanges.paimonType(change.fieldNames().last, change.newDataType()).withNullable(current.nullable)
      TypeCasts.allowed(current, next, explicit)
    }
  }
}
