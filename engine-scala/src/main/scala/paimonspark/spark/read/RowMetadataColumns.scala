package paimonspark.spark.read

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StringType, StructField}

/** A metadata column of a table's rows, under Paimon's name; `SELECT *` leaves it out. */
sealed abstract class RowMetadataColumn(val Name: String, dataType: DataType, description: String) extends MetadataColumn {
  override def name(): String = Name
  override def dataType(): DataType = dataType
  override def isNullable: Boolean = false
  override def comment(): String = description

  val field: StructField = StructField(Name, dataType, nullable = false)
  def reference: NamedReference = Expressions.column(Name)
}

/**
 * The data file a row was read from. Copy-on-write statements group rows by it: Spark finds the
 * files that hold a changed row with it and narrows the rewrite's scan to those files at run time.
 */
object FilePathColumn extends RowMetadataColumn("__paimon_file_path", StringType, "the data file the row was read from")

/**
 * The row's position in its data file (0 for the file's first row, deleted rows counted). With
 * [[FilePathColumn]] it identifies a row: DELETE, UPDATE and MERGE with deletion vectors mark rows by it.
 */
object RowIndexColumn extends RowMetadataColumn("__paimon_row_index", LongType, "the row's position in its data file")

/**
 * The bucket a row was read from, of any table (a cross-partition write's bootstrap reads where
 * each key lives by it). It comes right after the partition columns, as a value of the split.
 */
object BucketColumn extends RowMetadataColumn("__paimon_bucket", IntegerType, "the bucket the row was read from")
