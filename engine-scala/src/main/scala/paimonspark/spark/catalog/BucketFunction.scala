package paimonspark.spark.catalog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException
import org.apache.spark.sql.connector.catalog.{FunctionCatalog, Identifier}
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, Reducer, ReducibleFunction, ScalarFunction,
  UnboundFunction}
import org.apache.spark.sql.types.{DataType, DateType, IntegerType, LongType, StructField, StructType}

import paimonspark.format.row.BucketHash
import paimonspark.table.BucketFunctionType

/**
 * Paimon's bucket function as a Spark function, `paimon_bucket(buckets, key columns...)`: writes to
 * primary-key tables ask Spark to cluster rows by it, so each bucket is written by one task, and
 * scans report their layout by it (as `bucket`, the name of Spark's bucket transform). Spark finds
 * it through the catalog of the table written to or read.
 */
object BucketFunction extends UnboundFunction {
  val Name = "paimon_bucket"

  override def name(): String = Name

  override def description(): String =
    s"$Name(buckets, key...) - the Paimon bucket (Murmur3 over the BinaryRow of the key columns) among `buckets`"

  override def bind(inputType: StructType): BoundFunction = {
    if (inputType.length < 2 || inputType.head.dataType != IntegerType) {
      throw new UnsupportedOperationException(s"$Name takes a number of buckets (INT) and at least one key column")
    }
    val types = inputType.fields.map(_.dataType)
    // Spark calls `invoke` from generated code (no row, no boxing) when its parameter types match the
    // arguments'; a null would reach it as 0, so only for a key column that cannot be null.
    inputType.fields.tail match {
      case Array(StructField(_, LongType, false, _)) => new LongKey(types)
      case Array(StructField(_, IntegerType | DateType, false, _)) => new IntKey(types)
      case _ => new Bound(types)
    }
  }

  class Bound(types: Array[DataType]) extends ScalarFunction[Integer] with ReducibleFunction[Integer, Integer] {
    private val keyTypes = KeyBucketFunction.paimonTypes(types)
    @transient private lazy val bucket = BucketFunctionType.bucketer(BucketFunctionType.Default, keyTypes, types.indices.tail)

    override def inputTypes(): Array[DataType] = types
    override def resultType(): DataType = IntegerType
    override def name(): String = Name
    override def canonicalName(): String = s"paimon.$Name(${keyTypes.map(_.sql).mkString(", ")})"
    override def isResultNullable: Boolean = false
    override def produceResult(input: InternalRow): Integer = bucket.bucket(input, input.getInt(0))

    /**
     * A bucket among N, the absolute remainder of the key's hash, gives its bucket among any G
     * dividing N as its remainder by G: two layouts of the same key types join on the buckets of
     * the greatest common divisor of their counts (when Spark allows compatible transforms).
     */
    override def reducer(buckets: Int, other: ReducibleFunction[_, _], otherBuckets: Int): Reducer[Integer, Integer] =
      other match {
        case o: Bound if o.canonicalName() == canonicalName() && gcd(buckets, otherBuckets) != buckets =>
          BucketReducer(gcd(buckets, otherBuckets))
        case _ => null
      }

    @scala.annotation.tailrec
    private def gcd(a: Int, b: Int): Int = if (b == 0) a else gcd(b, a % b)
  }

  /** A key of one BIGINT column that is never null. */
  final class LongKey(types: Array[DataType]) extends Bound(types) {
    def invoke(buckets: Int, key: Long): Int = BucketHash.bucketOf(BucketHash.hashOfLong(key), buckets)
  }

  /** A key of one INT or DATE column that is never null. */
  final class IntKey(types: Array[DataType]) extends Bound(types) {
    def invoke(buckets: Int, key: Int): Int = BucketHash.bucketOf(BucketHash.hashOfInt(key), buckets)
  }

  /** Maps a bucket among a multiple of `buckets` to its bucket among `buckets`. */
  final case class BucketReducer(buckets: Int) extends Reducer[Integer, Integer] {
    override def reduce(bucket: Integer): Integer = bucket % buckets
    override def resultType(): DataType = IntegerType
    override def displayName(): String = s"$Name($buckets)"
  }
}

/**
 * The functions every Paimon catalog offers, under `sys` or no namespace, as in Paimon: the bucket
 * function (`paimon_bucket`, which Spark asks for with an empty namespace, or Paimon's `bucket`),
 * `mod_bucket`, `hive_bucket` and `max_pt`.
 */
trait PaimonFunctions extends FunctionCatalog {
  override def listFunctions(namespace: Array[String]): Array[Identifier] =
    PaimonFunctions.all.keys.toArray.sorted.map(Identifier.of(namespace, _)).filter(i => PaimonFunctions.find(i).isDefined)

  override def loadFunction(ident: Identifier): UnboundFunction =
    PaimonFunctions.find(ident).getOrElse(throw new NoSuchFunctionException(ident))
}

object PaimonFunctions {
  // `bucket` is Paimon's name of its default bucket function.
  private val all: Map[String, UnboundFunction] = Map(BucketFunction.Name -> BucketFunction, "bucket" -> BucketFunction,
    ModBucketFunction.Name -> ModBucketFunction, HiveBucketFunction.Name -> HiveBucketFunction,
    MaxPartitionFunction.Name -> MaxPartitionFunction)

  /** The name of the function for a table's `bucket-function.type`, which writes cluster rows by. */
  def of(function: BucketFunctionType): String = function match {
    case BucketFunctionType.Default => BucketFunction.Name
    case BucketFunctionType.Mod => ModBucketFunction.Name
    case BucketFunctionType.Hive => HiveBucketFunction.Name
  }

  def find(ident: Identifier): Option[UnboundFunction] = ident.namespace() match {
    case Array() => all.get(ident.name().toLowerCase)
    case Array(ns) if ns.equalsIgnoreCase("sys") => all.get(ident.name().toLowerCase)
    case _ => None
  }
}
