package paimonspark.lsm

import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData, TypeUtils}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/**
 * One column's aggregate function of the `aggregation` engine (`fields.<f>.aggregate-function`).
 * `add` folds a newer value into the accumulator; `retract` takes a retracted value back out, for
 * the functions where Paimon can.
 */
sealed abstract class Aggregator(val name: String) extends Serializable {
  def add(acc: Any, value: Any): Any
  /**
   * Folds in a value older than the accumulator, which partial-update sequence groups meet when a
   * version arrives out of order: as Paimon, the older value goes first (`add(value, acc)`).
   */
  def addOlder(acc: Any, value: Any): Any = add(value, acc)
  def retract(acc: Any, value: Any): Any = throw new UnsupportedFeatureException(s"aggregate function '$name' cannot " +
    "take back a retracted value (-U/-D); set 'fields.<column>.ignore-retract' = 'true' to skip retractions instead")
}

object Aggregator {
  val Default = "last_non_null_value"

  /**
   * The aggregator of `column` (type `t`) named by `name`; `options` are the column's own
   * `fields.<column>.*` options without the prefix (`ignore-retract`, `distinct`, `list-agg-delimiter`).
   */
  def apply(name: String, column: String, t: DataType, options: Map[String, String] = Map.empty): Aggregator = {
    val base = plain(name, column, t, options)
    if (options.get("ignore-retract").exists(_.trim.equalsIgnoreCase("true"))) new IgnoreRetract(base) else base
  }

  private def plain(name: String, column: String, t: DataType, options: Map[String, String]): Aggregator = {
    def fail(what: String) = throw new InvalidOptionException(s"fields.$column.aggregate-function",
      s"aggregate function '$name' needs $what, and '$column' is ${t.sql}")
    val distinct = options.get("distinct").exists(_.trim.equalsIgnoreCase("true"))
    def numeric(): Unit = if (!t.isInstanceOf[NumericType]) fail("a numeric column")
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
      case "listagg" =>
        if (t != StringType) fail("a string column")
        new ListAgg(UTF8String.fromString(options.getOrElse("list-agg-delimiter", ",")), distinct)
      case "collect" => t match {
        case a: ArrayType => new Collect(a.elementType, distinct)
        case _ => fail("an ARRAY column")
      }
      case "merge_map" => t match {
        case m: MapType => new MergeMap(m)
        case _ => fail("a MAP column")
      }
      case "count" => throw new UnsupportedFeatureException(s"aggregate function 'count' (column '$column') does not " +
        "exist in Paimon 1.x, so other engines could not read the table; use 'sum' over a column of 1s")
      case other => throw new UnsupportedFeatureException(s"aggregate function '$other' (column '$column') is not supported yet")
    }
  }

  private final class IgnoreRetract(inner: Aggregator) extends Aggregator(inner.name) {
    override def add(acc: Any, value: Any): Any = inner.add(acc, value)
    override def addOlder(acc: Any, value: Any): Any = inner.addOlder(acc, value)
    override def retract(acc: Any, value: Any): Any = acc
  }

  /**
   * Strings joined by the delimiter, oldest first, skipping nulls and empty strings (Paimon 1.4).
   * With `distinct`, the newer value is cut at the delimiter and only pieces the accumulator does
   * not hold yet (and not empty) are appended; the accumulator itself is kept as it is.
   */
  private final class ListAgg(delimiter: UTF8String, distinct: Boolean) extends Aggregator("listagg") {
    private val separator = java.util.regex.Pattern.quote(delimiter.toString)
    private def pieces(s: UTF8String): Array[String] = s.toString.split(separator, -1)
    override def add(acc: Any, value: Any): Any = (acc, value) match {
      case (null, _) => value
      case (_, null) => acc
      case (a: UTF8String, v: UTF8String) =>
        if (v.numBytes == 0) a
        else if (a.numBytes == 0) v
        else if (!distinct) UTF8String.concat(a, delimiter, v)
        else {
          val seen = scala.collection.mutable.HashSet(pieces(a).toSeq: _*)
          val added = pieces(v).filter(p => p.nonEmpty && seen.add(p))
          if (added.isEmpty) a
          else UTF8String.concat(a, delimiter, UTF8String.fromString(added.mkString(delimiter.toString)))
        }
    }
  }

  /** Array elements of every version, oldest first; with `distinct`, each element once (first occurrence). */
  private final class Collect(element: DataType, distinct: Boolean) extends Aggregator("collect") {
    private def items(a: Any): Seq[Any] = a.asInstanceOf[ArrayData].toSeq[Any](element).map(comparable)
    private def comparable(v: Any): Any = v match {
      case b: Array[Byte] => b.toSeq
      case other => other
    }
    private def restore(v: Any): Any = v match {
      case b: Seq[_] => b.asInstanceOf[Seq[Byte]].toArray
      case other => other
    }
    private def array(values: Seq[Any]): ArrayData = new GenericArrayData(values.map(restore).toArray)
    override def add(acc: Any, value: Any): Any =
      if (acc == null && value == null) null
      else if (!distinct && (acc == null || value == null)) if (acc == null) value else acc
      else {
        val all = Option(acc).map(items).getOrElse(Nil) ++ Option(value).map(items).getOrElse(Nil)
        array(if (distinct) all.distinct else all)
      }
    // As Paimon: an older value is appended too, not put first.
    override def addOlder(acc: Any, value: Any): Any = add(acc, value)
    override def retract(acc: Any, value: Any): Any =
      if (acc == null || value == null) acc
      else {
        val remaining = scala.collection.mutable.ArrayBuffer(items(acc): _*)
        items(value).foreach { v => val i = remaining.indexOf(v); if (i >= 0) remaining.remove(i) }
        array(remaining.toSeq)
      }
  }

  /** Maps merged key by key, the newer value winning (a null value too); retraction removes keys. */
  private final class MergeMap(t: MapType) extends Aggregator("merge_map") {
    private def entries(m: Any): Seq[(Any, Any)] = {
      val map = m.asInstanceOf[MapData]
      map.keyArray().toSeq[Any](t.keyType).zip(map.valueArray().toSeq[Any](t.valueType))
    }
    private def map(entries: Iterable[(Any, Any)]): MapData =
      ArrayBasedMapData(entries.map(_._1).toArray, entries.map(_._2).toArray)
    override def add(acc: Any, value: Any): Any =
      if (acc == null) value else if (value == null) acc
      else {
        val merged = scala.collection.mutable.LinkedHashMap.empty[Any, Any]
        (entries(acc) ++ entries(value)).foreach { case (k, v) => merged(k) = v }
        map(merged)
      }
    override def retract(acc: Any, value: Any): Any =
      if (acc == null || value == null) acc
      else {
        val gone = entries(value).map(_._1).toSet
        map(entries(acc).filterNot { case (k, _) => gone.contains(k) })
      }
  }

  private final class Pick(name: String, f: (Any, Any) => Any, undo: Option[(Any, Any) => Any] = None)
      extends Aggregator(name) {
    override def add(acc: Any, value: Any): Any = f(acc, value)
    override def retract(acc: Any, value: Any): Any = undo.map(_(acc, value)).getOrElse(super.retract(acc, value))
  }

  /**
   * The first value ever seen; a null accumulator before it means "nothing seen yet". A value older
   * than the accumulator replaces it (first_non_null_value: unless it is null).
   */
  private final class First(name: String, skipNulls: Boolean) extends Aggregator(name) {
    override def add(acc: Any, value: Any): Any = acc match {
      case null if skipNulls => value
      case null => Some(value)
      case Some(v) => Some(v)
      case v => v
    }
    override def addOlder(acc: Any, value: Any): Any =
      if (skipNulls) { if (value == null) acc else value } else Some(value)
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
