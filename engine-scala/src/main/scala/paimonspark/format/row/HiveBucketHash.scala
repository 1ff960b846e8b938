package paimonspark.format.row

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Paimon's `hive` bucket function (`bucket-function.type` = hive): Hive's hash of the bucket key's
 * values, how Hive buckets its tables, so a Paimon table can be bucketed the way a Hive table it
 * joins with is. Each value is hashed as Hive hashes it, and combined as `31 * h + hash(value)`.
 */
object HiveBucketHash {
  private val MaxPrecision = 38

  def supports(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | DateType | LongType | FloatType | DoubleType => true
    case _: StringType | BinaryType | _: DecimalType => true
    case _ => false
  }

  /** The bucket among `buckets` of the values of `row` at `ordinals`, whose types are `types`. */
  def bucket(row: InternalRow, ordinals: Array[Int], types: Array[DataType], buckets: Int): Int = {
    var hash = 0
    var i = 0
    while (i < ordinals.length) {
      hash = 31 * hash + (if (row.isNullAt(ordinals(i))) 0 else hashOf(row, ordinals(i), types(i)))
      i += 1
    }
    (hash & Int.MaxValue) % buckets
  }

  private def hashOf(row: InternalRow, i: Int, t: DataType): Int = t match {
    case BooleanType => if (row.getBoolean(i)) 1 else 0
    case ByteType => row.getByte(i).toInt
    case ShortType => row.getShort(i).toInt
    case IntegerType | DateType => row.getInt(i)
    case LongType => java.lang.Long.hashCode(row.getLong(i))
    case FloatType =>
      val f = row.getFloat(i)
      if (f == 0.0f) 0 else java.lang.Float.floatToIntBits(f)
    case DoubleType =>
      val d = row.getDouble(i)
      java.lang.Long.hashCode(if (d == 0.0d) 0L else java.lang.Double.doubleToLongBits(d))
    case _: StringType => bytes(row.getUTF8String(i).getBytes)
    case BinaryType => bytes(row.getBinary(i))
    case d: DecimalType => Option(normalized(row.getDecimal(i, d.precision, d.scale).toJavaBigDecimal)).fold(0)(_.hashCode)
    case other => throw new IllegalArgumentException(s"the hive bucket function does not hash ${other.sql}")
  }

  private def bytes(b: Array[Byte]): Int = {
    var h = 0
    var i = 0
    while (i < b.length) { h = h * 31 + b(i); i += 1 }
    h
  }

  /** Hive's decimal as it hashes it: trailing zeros trimmed, scale capped to its 38 digits; null if too large. */
  private def normalized(input: java.math.BigDecimal): java.math.BigDecimal = {
    val trimmed = trim(input)
    val intDigits = trimmed.precision - trimmed.scale
    if (intDigits > MaxPrecision) null
    else {
      val maxScale = math.min(MaxPrecision, math.min(MaxPrecision - intDigits, trimmed.scale))
      if (trimmed.scale > maxScale) trim(trimmed.setScale(maxScale, java.math.RoundingMode.HALF_UP)) else trimmed
    }
  }

  private def trim(d: java.math.BigDecimal): java.math.BigDecimal =
    if (d.signum == 0) java.math.BigDecimal.ZERO
    else {
      val stripped = d.stripTrailingZeros
      if (stripped.scale < 0) stripped.setScale(0) else stripped
    }
}
