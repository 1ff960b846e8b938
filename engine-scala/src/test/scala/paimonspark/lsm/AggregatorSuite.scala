package paimonspark.lsm

import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/** The collection and string aggregate functions, folded oldest first, with Paimon 1.x's rules. */
class AggregatorSuite extends AnyFunSuite {
  private def s(v: String) = UTF8String.fromString(v)
  private def arr(vs: Any*): ArrayData = new GenericArrayData(vs.toArray)
  private def ints(a: Any): Seq[Any] = Option(a).map(_.asInstanceOf[ArrayData].toSeq[Any](IntegerType)).orNull
  private def map(kvs: (Int, String)*): MapData = ArrayBasedMapData(kvs.map(_._1).toArray, kvs.map(kv => s(kv._2)).toArray)
  private def entries(m: Any): Seq[(Any, Any)] = {
    val d = m.asInstanceOf[MapData]
    d.keyArray().toSeq[Any](IntegerType).zip(d.valueArray().toSeq[Any](StringType).map(Option(_).map(_.toString).orNull))
  }
  private def fold(agg: Aggregator, values: Any*): Any = values.foldLeft(null: Any)(agg.add)

  test("listagg joins strings with the delimiter, skipping nulls and empty ones as Paimon 1.4 does") {
    val agg = Aggregator("listagg", "c", StringType, Map("list-agg-delimiter" -> "|"))
    assert(fold(agg, s("a"), null, s(""), s("b")).toString == "a|b")
    assert(fold(Aggregator("listagg", "c", StringType), s("x"), s("y")).toString == "x,y")
    intercept[InvalidOptionException](Aggregator("listagg", "c", IntegerType))
  }

  test("listagg with distinct appends only the pieces of a value the list does not hold yet") {
    val agg = Aggregator("listagg", "c", StringType, Map("distinct" -> "true", "list-agg-delimiter" -> ";"))
    assert(fold(agg, s("a;b"), s("b;c;;a"), s("c"), s("d;d")).toString == "a;b;c;d")
    // The first value is taken as it is, repeats included (Paimon splits only what is added).
    assert(fold(agg, s("x;x"), s("x;y")).toString == "x;x;y")
  }

  test("collect appends arrays, distinct keeps first occurrences, retraction removes one occurrence each") {
    val t = ArrayType(IntegerType)
    val all = Aggregator("collect", "c", t)
    assert(ints(fold(all, arr(1, 2), null, arr(2, 3))) == Seq(1, 2, 2, 3))
    val distinct = Aggregator("collect", "c", t, Map("distinct" -> "true"))
    assert(ints(fold(distinct, arr(3, 1, 3), arr(1, 2))) == Seq(3, 1, 2))
    assert(ints(all.retract(arr(1, 2, 2, 3), arr(2, 9))) == Seq(1, 2, 3))
    assert(all.retract(null, arr(1)) == null)
  }

  test("merge_map merges keys, the newer value winning (null too); retraction removes keys") {
    val agg = Aggregator("merge_map", "c", MapType(IntegerType, StringType))
    val merged = fold(agg, map(1 -> "a", 2 -> "b"), map(2 -> "B", 3 -> "c"))
    assert(entries(merged).toMap == Map(1 -> "a", 2 -> "B", 3 -> "c"))
    val withNull = agg.add(merged, ArrayBasedMapData(Array[Any](1), Array[Any](null)))
    assert(entries(withNull).toMap == Map(1 -> null, 2 -> "B", 3 -> "c"))
    assert(entries(agg.retract(merged, map(2 -> "anything"))).toMap == Map(1 -> "a", 3 -> "c"))
  }

  test("ignore-retract makes any function skip retractions") {
    val max = Aggregator("max", "c", IntegerType)
    intercept[UnsupportedFeatureException](max.retract(5, 3))
    assert(Aggregator("max", "c", IntegerType, Map("ignore-retract" -> "true")).retract(5, 3) == 5)
  }
}
