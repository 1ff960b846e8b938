package paimonspark.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.types.{DataType, LongType, StructField}

/**
 * The metadata column giving a row's position in the data file it was read from (0 for the file's
 * first row, deleted rows counted), under Paimon's name. With [[FilePathColumn]] it identifies a
 * row of an append table: DELETE, UPDATE and MERGE with deletion vectors mark rows by it.
 */
object RowIndexColumn extends MetadataColumn {
  val Name = "__paimon_row_index"

  override def name(): String = Name
  override def dataType(): DataType = LongType
  override def isNullable: Boolean = false
  override def comment(): String = "the row's position in its data file"

  val field: StructField = StructField(Name, LongType, nullable = false)
  def reference: NamedReference = Expressions.column(Name)
}
