package paimonspark.lsm

import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/**
 * One column's aggregate function of the `aggregation` engine (`fields.<f>.aggregate-function`).
 * `add` folds a newer value into the accumulator; `retract` takes a retracted value back out, for
 * the functions where Paimon can.
 */
sealed abstract class Aggregator(val name: String) extends Serializable {
  def add(acc: Any, value: Any): Any
  def retract(acc: Any, value: Any): Any =
    throw new UnsupportedFeatureException(s"aggregate function '$name' cannot take back a retracted value")
}

object Aggregator {
  val Default = "last_non_null_value"

  def apply(name: String, column: String, t: DataType): Aggregator = {
    def numeric(): Unit = if (!t.isInstanceOf[NumericType]) {
      throw new InvalidOptionException(s"fields.$column.aggregate-function",
        s"aggregate function '$name' needs a numeric column, and '$column' is ${t.sql}")
    }
    name.trim.toLowerCase match {
      case "sum" => numeric(); new Sum(t)
      case "product" => numeric(); new Product(t)
      case "min" => new Extreme("min", t, keepSmaller = true)
      case "max" => new Extreme("max", t, keepSmaller = false)
      case "last_value" => new Pick("last_value", (_, v) => v, Some((_, _) => null))
      case "last_non_null_value" =>
        // As Paimon: retracting a value clears the column; retracting a null leaves it.
        new Pick("last_non_null_value", (a, v) => if (v == null) a else v, Some((a, v) => if (v == null) a else null))
      case "first_value" => new First("first_value", skipNulls = false)
      case "first_non_null_value" => new First("first_non_null_value", skipNulls = true)
      case "bool_and" => new Pick("bool_and", (a, v) => if (a == null) v else if (v == null) a else
        (a.asInstanceOf[Boolean] && v.asInstanceOf[Boolean]))
      case "bool_or" => new Pick("bool_or", (a, v) => if (a == null) v else if (v == null) a else
        (a.asInstanceOf[Boolean] || v.asInstanceOf[Boolean]))
      case other => throw new UnsupportedFeatureException(s"aggregate function '$other' (column '$column') is not supported yet")
    }
  }

  private final class Pick(name: String, f: (Any, Any) => Any, undo: Option[(Any, Any) => Any] = None)
      extends Aggregator(name) {
    override def add(acc: Any, value: Any): Any = f(acc, value)
    override def retract(acc: Any, value: Any): Any = undo.map(_(acc, value)).getOrElse(super.retract(acc, value))
  }

  /** The first value ever seen; a null accumulator before it means "nothing seen yet". */
  private final class First(name: String, skipNulls: Boolean) extends Aggregator(name) {
    override def add(acc: Any, value: Any): Any = acc match {
      case null if skipNulls => value
      case null => Some(value)
      case Some(v) => Some(v)
      case v => v
    }
  }

  private final class Extreme(name: String, t: DataType, keepSmaller: Boolean) extends Aggregator(name) {
    private val ordering = TypeUtils.getInterpretedOrdering(t)
    override def add(acc: Any, value: Any): Any =
      if (acc == null) value else if (value == null) acc
      else if (ordering.lt(value, acc) == keepSmaller) value else acc
  }

  private final class Sum(t: DataType) extends Aggregator("sum") {
    override def add(acc: Any, value: Any): Any = combine(acc, value, negate = false)
    override def retract(acc: Any, value: Any): Any = combine(acc, value, negate = true)
    private def combine(acc: Any, value: Any, negate: Boolean): Any =
      if (value == null) acc
      else {
        val a = if (acc == null) zero else acc
        (t, a, value) match {
          case (ByteType, x: Byte, y: Byte) => (if (negate) x - y else x + y).toByte
          case (ShortType, x: Short, y: Short) => (if (negate) x - y else x + y).toShort
          case (IntegerType, x: Int, y: Int) => if (negate) x - y else x + y
          case (LongType, x: Long, y: Long) => if (negate) x - y else x + y
          case (FloatType, x: Float, y: Float) => if (negate) x - y else x + y
          case (DoubleType, x: Double, y: Double) => if (negate) x - y else x + y
          case (d: DecimalType, x: Decimal, y: Decimal) =>
            val r = if (negate) x - y else x + y
            if (r.changePrecision(d.precision, d.scale)) r else null
        }
      }
    private def zero: Any = t match {
      case ByteType => 0.toByte
      case ShortType => 0.toShort
      case IntegerType => 0
      case LongType => 0L
      case FloatType => 0f
      case DoubleType => 0d
      case d: DecimalType => Decimal(0, d.precision, d.scale)
    }
  }

  private final class Product(t: DataType) extends Aggregator("product") {
    override def add(acc: Any, value: Any): Any =
      if (value == null) acc else if (acc == null) value
      else (t, acc, value) match {
        case (ByteType, x: Byte, y: Byte) => (x * y).toByte
        case (ShortType, x: Short, y: Short) => (x * y).toShort
        case (IntegerType, x: Int, y: Int) => x * y
        case (LongType, x: Long, y: Long) => x * y
        case (FloatType, x: Float, y: Float) => x * y
        case (DoubleType, x: Double, y: Double) => x * y
        case (d: DecimalType, x: Decimal, y: Decimal) =>
          val r = x * y
          if (r.changePrecision(d.precision, d.scale)) r else null
      }
  }
}
