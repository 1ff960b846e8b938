package paimonspark.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.types.{DataType, StringType, StructField}

/**
 * The metadata column naming the data file a row of an append table was read from, under Paimon's
 * name. Copy-on-write statements group rows by it: Spark finds the files that hold a changed row
 * with it and narrows the rewrite's scan to those files at run time.
 */
object FilePathColumn extends MetadataColumn {
  val Name = "__paimon_file_path"

  override def name(): String = Name
  override def dataType(): DataType = StringType
  override def isNullable: Boolean = false
  override def comment(): String = "the data file the row was read from"

  val field: StructField = StructField(Name, StringType, nullable = false)
  def reference: NamedReference = Expressions.column(Name)
}
