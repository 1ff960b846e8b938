package paimonspark.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{ByteArray, UTF8String}

import paimonspark.table.compact.SpaceFillingCurves

/**
 * A sort key over `children` along a space-filling curve (z-order or Hilbert): each column is first
 * mapped to 64 bits whose unsigned order is its own (strings and binaries by their first 8 bytes,
 * nulls lowest), then [[SpaceFillingCurves]] combines them.
 */
final case class CurveKey(children: Seq[Expression], hilbert: Boolean) extends Expression with CodegenFallback {
  override def nullable: Boolean = false
  override def dataType: DataType = BinaryType

  override def eval(input: InternalRow): Any = {
    val values = children.map(c => CurveKey.ordered(c.eval(input), c.dataType)).toArray
    if (hilbert) SpaceFillingCurves.hilbert(values) else SpaceFillingCurves.zOrder(values)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): Expression =
    copy(children = newChildren)
}

object CurveKey {
  private val SignBit = Long.MinValue

  /** Whether a column of this type can be on a curve. */
  def supports(dataType: DataType): Boolean = dataType match {
    case _: NumericType | _: StringType | BinaryType | BooleanType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /** 64 bits whose unsigned order is the value's order; null is 0, below every value. */
  def ordered(value: Any, dataType: DataType): Long = if (value == null) 0L else dataType match {
    case ByteType => top(value.asInstanceOf[Byte].toLong, 8)
    case ShortType => top(value.asInstanceOf[Short].toLong, 16)
    case IntegerType | DateType => top(value.asInstanceOf[Int].toLong, 32)
    case LongType | TimestampType | TimestampNTZType => value.asInstanceOf[Long] ^ SignBit
    case FloatType => floating(value.asInstanceOf[Float].toDouble)
    case DoubleType => floating(value.asInstanceOf[Double])
    case d: DecimalType =>
      val decimal = value.asInstanceOf[Decimal]
      if (d.precision <= Decimal.MAX_LONG_DIGITS) decimal.toUnscaledLong ^ SignBit else floating(decimal.toDouble)
    case _: StringType => value.asInstanceOf[UTF8String].getPrefix
    case BinaryType => ByteArray.getPrefix(value.asInstanceOf[Array[Byte]])
    case BooleanType => if (value.asInstanceOf[Boolean]) SignBit else 1L << 62
    case other => throw new IllegalArgumentException(s"no curve order for ${other.sql}")
  }

  // A narrow integer's bits at the top of the 64, so that on a curve its high bits weigh as much as a
  // long's or a string's, not only its low ones (nulls stay at 0, below every value).
  private def top(value: Long, width: Int): Long = ((value + (1L << (width - 1))) << (64 - width)) | 1L

  // IEEE 754 bits compare as signed-magnitude: negatives reversed, positives above them.
  private def floating(d: Double): Long = {
    val bits = java.lang.Double.doubleToLongBits(d)
    if (bits < 0) ~bits else bits ^ SignBit
  }
}
