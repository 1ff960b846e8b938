package paimonspark.spark.read

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.spark.SparkSchemas
import paimonspark.table.{CommitChanges, FileStoreTable, Predicate}

/**
 * Builds a [[ChangeScan]] over the commits `plan` picks for a pushed predicate. Filters on table
 * columns select files; Spark evaluates every filter again on the rows.
 */
final class ChangeScanBuilder(table: FileStoreTable, plan: Option[Predicate] => Seq[CommitChanges], added: ChangeColumns)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  private var required: StructType = ChangeScanBuilder.schema(table, added)
  private var pushed: Array[Filter] = Array.empty
  private val converter = new FilterConverter(table.schema)

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    pushed = filters.filter(f => converter.convert(f).isDefined)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  override def build(): Scan = {
    val predicate = pushed.toSeq.flatMap(converter.convert).reduceOption(Predicate.And)
    new ChangeScan(table, () => plan(predicate), added, required, pushed.toSeq)
  }
}

object ChangeScanBuilder {
  /** The table's columns with the added ones around them. */
  def schema(table: FileStoreTable, added: ChangeColumns): StructType =
    StructType(added.leading ++ SparkSchemas.sparkSchema(table.schema).fields ++ added.trailing)
}
