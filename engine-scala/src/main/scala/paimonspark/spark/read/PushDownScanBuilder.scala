package paimonspark.spark.read

import org.apache.spark.sql.connector.read.{ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import paimonspark.format.metadata.TableSchema
import paimonspark.table.Predicate

/**
 * What every scan builder over a table's files collects: the columns Spark asks for, and the
 * filters that can select files. Filters only select files; Spark evaluates all of them again
 * after the scan, so statistics can never drop a matching row.
 */
abstract class PushDownScanBuilder(schema: TableSchema, allColumns: StructType)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  protected var required: StructType = allColumns
  protected var pushed: Array[Filter] = Array.empty
  private val converter = new FilterConverter(schema)

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    pushed = filters.filter(f => converter.convert(f).isDefined)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  /** The pushed filters as one planner predicate, if any translate. */
  protected def predicate: Option[Predicate] = pushed.toSeq.flatMap(converter.convert).reduceOption(Predicate.And)
}
