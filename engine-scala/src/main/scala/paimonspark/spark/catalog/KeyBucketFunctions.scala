package paimonspark.spark.catalog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StructType}

import paimonspark.format.HiveBucketHash

/**
 * Paimon's functions for its other bucket functions (`bucket-function.type`), each taking the
 * number of buckets (INT) and the key columns: `mod_bucket(n, key)`, the floor modulo of one INT or
 * BIGINT key (a null key is 0, as Paimon reads it from its BinaryRow), and `hive_bucket(n, key...)`,
 * Hive's hash ([[HiveBucketHash]]).
 */
sealed abstract class KeyBucketFunction(val Name: String, keys: String) extends UnboundFunction {
  /** The bucket of an input row (buckets first, then the keys) among n, for keys of these types; None if refused. */
  protected def bucketOf(keyTypes: Array[DataType]): Option[(InternalRow, Int) => Int]

  override def name(): String = Name
  override def description(): String = s"$Name(buckets, $keys) - Paimon's $Name bucket of the key among `buckets`"

  override def bind(inputType: StructType): BoundFunction = {
    val types = inputType.fields.map(_.dataType)
    val bucket = if (types.length < 2 || types(0) != IntegerType) None else bucketOf(types.tail)
    new KeyBucketFunction.Bound(Name, types, bucket.getOrElse(throw new UnsupportedOperationException(
      s"$Name takes a number of buckets (INT) and $keys, not (${types.map(_.sql).mkString(", ")})")))
  }
}

object KeyBucketFunction {
  private final class Bound(name: String, types: Array[DataType], bucket: (InternalRow, Int) => Int)
      extends ScalarFunction[Integer] {
    override def inputTypes(): Array[DataType] = types
    override def resultType(): DataType = IntegerType
    override def name(): String = name
    override def canonicalName(): String = s"paimon.$name(${types.tail.map(_.sql).mkString(", ")})"
    override def isResultNullable: Boolean = false
    override def produceResult(input: InternalRow): Integer = bucket(input, input.getInt(0))
  }
}

object ModBucketFunction extends KeyBucketFunction("mod_bucket", "one INT or BIGINT key column") {
  override protected def bucketOf(keyTypes: Array[DataType]): Option[(InternalRow, Int) => Int] = keyTypes match {
    case Array(IntegerType) => Some((row, n) => if (row.isNullAt(1)) 0 else Math.floorMod(row.getInt(1), n))
    case Array(LongType) => Some((row, n) => if (row.isNullAt(1)) 0 else Math.floorMod(row.getLong(1), n.toLong).toInt)
    case _ => None
  }
}

object HiveBucketFunction extends KeyBucketFunction("hive_bucket", "key columns of boolean, numeric, date, string or binary types") {
  override protected def bucketOf(keyTypes: Array[DataType]): Option[(InternalRow, Int) => Int] =
    if (!keyTypes.forall(HiveBucketHash.supports)) None
    else {
      val ordinals = keyTypes.indices.map(_ + 1).toArray
      Some((row, n) => HiveBucketHash.bucket(row, ordinals, keyTypes, n))
    }
}
