package paimonspark.table

import org.apache.spark.sql.catalyst.InternalRow

import paimonspark.InvalidOptionException
import paimonspark.format.{AtomicType, DataType, SparkTypes, TypeRoot}
import paimonspark.format.row.{BinaryRowWriter, BucketHash, HiveBucketHash}
import paimonspark.format.metadata.TableSchema

/**
 * Paimon's `bucket-function.type`, how a fixed-bucket table maps a row's bucket key to a bucket:
 * `default`, Murmur3 over the key's BinaryRow; `mod`, the floor modulo of a single INT or BIGINT
 * key; `hive`, Hive's hash of the key's values. Every engine must compute the same, or readers
 * pruning by bucket miss rows.
 */
sealed abstract class BucketFunctionType(val name: String)

object BucketFunctionType {
  case object Default extends BucketFunctionType("default")
  case object Mod extends BucketFunctionType("mod")
  case object Hive extends BucketFunctionType("hive")

  def of(options: TableOptions): BucketFunctionType =
    Seq(Default, Mod, Hive).find(_.name == options.bucketFunctionType).getOrElse(Default)

  /** Refuses a bucket key the table's function cannot hash, with Paimon's reasons. */
  def check(table: String, schema: TableSchema, keys: Seq[String]): Unit =
    refusal(of(TableOptions(schema.options)), keys.map(k => k -> schema.field(k).dataType)).foreach { why =>
      throw new InvalidOptionException(TableOptions.BucketFunctionType, s"table $table: $why")
    }

  /** Why `function` cannot hash a bucket key of these (name, type) columns, in Paimon's words; None if it can. */
  def refusal(function: BucketFunctionType, keys: Seq[(String, DataType)]): Option[String] = function match {
    case Default => None
    case Mod =>
      if (keys.size != 1) Some("bucket key must have exactly one field in mod bucket function")
      else keys.head._2 match {
        case a: AtomicType if a.root == TypeRoot.Int || a.root == TypeRoot.BigInt => None
        case t => Some(s"bucket key type must be INT or BIGINT in mod bucket function, but got ${t.sql}")
      }
    case Hive =>
      keys.find { case (_, t) => !HiveBucketHash.supports(SparkTypes.physicalType(t)) }.map { case (k, t) =>
        s"the hive bucket function does not hash bucket-key column '$k' of type ${t.sql}"
      }
  }

  /** The bucket among n of a row of the table's columns, by its bucket key `keys`. */
  def bucketer(schema: TableSchema, keys: Seq[String]): RowBucket =
    bucketer(of(TableOptions(schema.options)), keys.map(k => schema.field(k).dataType), keys.map(schema.fieldNames.indexOf(_)))

  /** The bucket among n of a row whose key columns, of these types, are at `ordinals` (checked by [[refusal]]). */
  def bucketer(function: BucketFunctionType, types: Seq[DataType], ordinals: Seq[Int]): RowBucket = function match {
    case Default =>
      // A key of one integral column, the common case, is hashed from its value (no BinaryRow written).
      val at = ordinals.head
      val (long, int) = types match {
        case Seq(a: AtomicType) => (a.root == TypeRoot.BigInt, a.root == TypeRoot.Int || a.root == TypeRoot.Date)
        case _ => (false, false)
      }
      new RowBucket {
        private val key = new BinaryRowWriter(types, ordinals)
        override def hash(row: InternalRow): Int =
          if (long && !row.isNullAt(at)) BucketHash.hashOfLong(row.getLong(at))
          else if (int && !row.isNullAt(at)) BucketHash.hashOfInt(row.getInt(at))
          else BucketHash.hash(key.buffer, key.write(row))
        override def bucket(row: InternalRow, n: Int): Int = BucketHash.bucketOf(hash(row), n)
      }
    case Mod =>
      val ordinal = ordinals.head
      val long = types.head.asInstanceOf[AtomicType].root == TypeRoot.BigInt
      new RowBucket {
        override def hash(row: InternalRow): Int = throw new UnsupportedOperationException("mod buckets have no hash")
        // Paimon reads a null key from its BinaryRow as 0.
        override def bucket(row: InternalRow, n: Int): Int =
          if (row.isNullAt(ordinal)) 0
          else if (long) Math.floorMod(row.getLong(ordinal), n.toLong).toInt
          else Math.floorMod(row.getInt(ordinal), n)
      }
    case Hive =>
      val sparkTypes = types.map(SparkTypes.physicalType).toArray
      val at = ordinals.toArray
      new RowBucket {
        override def hash(row: InternalRow): Int = throw new UnsupportedOperationException("hive buckets have no hash")
        override def bucket(row: InternalRow, n: Int): Int = HiveBucketHash.bucket(row, at, sparkTypes, n)
      }
  }

  /** A row's bucket; `hash` is the default function's Murmur3, which dynamic buckets look up. */
  trait RowBucket {
    def hash(row: InternalRow): Int
    def bucket(row: InternalRow, n: Int): Int
  }
}
