package paimonspark.spark.catalog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.paimon.CatalogLookup
import org.apache.spark.sql.types.{DataType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.{SparkSchemas, SparkTable}
import paimonspark.table.scan.ScanPlanner

/**
 * Paimon's `sys.max_pt('t')`: the greatest value of the table's first partition column among the
 * partitions holding data, as a string, so that `WHERE dt = sys.max_pt('t')` reads the latest
 * partition. The table is named as Spark names tables. Its argument is a constant, so Spark folds
 * the call into a literal while planning, and partition filters prune on it.
 */
object MaxPartitionFunction extends UnboundFunction {
  val Name = "max_pt"

  override def name(): String = Name
  override def description(): String = s"$Name(table) - the greatest value of the table's first partition column"

  override def bind(inputType: StructType): BoundFunction = {
    if (inputType.length != 1 || inputType.head.dataType != StringType) {
      throw new UnsupportedFeatureException(s"$Name takes one argument, a table name (STRING); not " +
        s"(${inputType.map(_.dataType.sql).mkString(", ")})", Name)
    }
    Bound
  }

  private object Bound extends ScalarFunction[UTF8String] {
    override def inputTypes(): Array[DataType] = Array(StringType)
    override def resultType(): DataType = StringType
    override def name(): String = Name
    override def canonicalName(): String = s"paimon.$Name(string)"
    override def produceResult(input: InternalRow): UTF8String = UTF8String.fromString(maxPartition(input.getUTF8String(0).toString))
  }

  def maxPartition(table: String): String = {
    val parts = TableName.multipart(table)
    val store = CatalogLookup.load(SparkSession.active, parts) match {
      case Some(t: SparkTable) => t.store
      case _ => throw new NoSuchTableException(parts)
    }
    val first = store.schema.partitionKeys.headOption.getOrElse(throw new UnsupportedFeatureException(
      s"$Name: table $table is not partitioned", Name))
    val dataType = SparkSchemas.sparkSchema(store.schema)(first).dataType
    val values = ScanPlanner.forMetadata(store).plan(store.currentSnapshot(), None).filter(_.files.nonEmpty)
      .map(_.partition.get(0, dataType)).filter(_ != null)
    if (values.isEmpty) {
      throw new UnsupportedFeatureException(s"$Name: table $table has no partitions, or none of them has data", Name)
    }
    Cast(Literal(values.max(TypeUtils.getInterpretedOrdering(dataType)), dataType), StringType).eval().toString
  }
}
