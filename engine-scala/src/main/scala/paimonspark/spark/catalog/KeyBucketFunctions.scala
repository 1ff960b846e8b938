package paimonspark.spark.catalog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types.{DataType => SparkType, IntegerType, StructType}

import paimonspark.format.{DataType, SparkTypes}
import paimonspark.table.BucketFunctionType

/**
 * Paimon's functions for its other bucket functions (`bucket-function.type`), each taking the
 * number of buckets (INT) and the key columns: `mod_bucket(n, key)`, the floor modulo of one INT or
 * BIGINT key, and `hive_bucket(n, key...)`, Hive's hash. Both compute as the table's writers do
 * ([[BucketFunctionType]]).
 */
sealed abstract class KeyBucketFunction(val Name: String, function: BucketFunctionType, keys: String)
    extends UnboundFunction {
  override def name(): String = Name
  override def description(): String = s"$Name(buckets, $keys) - Paimon's $Name bucket of the key among `buckets`"

  override def bind(inputType: StructType): BoundFunction = {
    val types = inputType.fields.map(_.dataType)
    val keyTypes = KeyBucketFunction.paimonTypes(types)
    val hashable = types.length >= 2 && types(0) == IntegerType &&
      BucketFunctionType.refusal(function, keyTypes.zipWithIndex.map { case (t, i) => s"_${i + 1}" -> t }).isEmpty
    if (!hashable) throw new UnsupportedOperationException(
      s"$Name takes a number of buckets (INT) and $keys, not (${types.map(_.sql).mkString(", ")})")
    new KeyBucketFunction.Bound(Name, function, types)
  }
}

object KeyBucketFunction {
  /** The key columns' types (all but the first input, the number of buckets) as Paimon's. */
  private[catalog] def paimonTypes(types: Array[SparkType]): Seq[DataType] =
    types.toSeq.drop(1).zipWithIndex.map { case (t, i) => SparkTypes.toPaimon(t, s"_${i + 1}", () => 0) }

  private final class Bound(name: String, function: BucketFunctionType, types: Array[SparkType])
      extends ScalarFunction[Integer] {
    @transient private lazy val bucket = BucketFunctionType.bucketer(function, paimonTypes(types), types.indices.tail)

    override def inputTypes(): Array[SparkType] = types
    override def resultType(): SparkType = IntegerType
    override def name(): String = name
    override def canonicalName(): String = s"paimon.$name(${types.tail.map(_.sql).mkString(", ")})"
    override def isResultNullable: Boolean = false
    override def produceResult(input: InternalRow): Integer = bucket.bucket(input, input.getInt(0))
  }
}

object ModBucketFunction extends KeyBucketFunction("mod_bucket", BucketFunctionType.Mod, "one INT or BIGINT key column")

object HiveBucketFunction extends KeyBucketFunction("hive_bucket", BucketFunctionType.Hive,
  "key columns of boolean, numeric, date, string or binary types")
