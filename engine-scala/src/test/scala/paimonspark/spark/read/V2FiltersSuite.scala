package paimonspark.spark.read

import org.apache.spark.sql.connector.expressions.{Expression, Expressions}
import org.apache.spark.sql.connector.expressions.filter.{And, Or, Predicate}
import org.apache.spark.sql.sources
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{DataField, DataTypes}
import paimonspark.format.metadata.TableSchema
import paimonspark.table.{Predicate => P}

class V2FiltersSuite extends AnyFunSuite {
  private val schema = TableSchema(0, Seq(DataField(0, "v", DataTypes.int), DataField(1, "dt", DataTypes.string)), 1,
    Seq("dt"), Nil, Map.empty, None, 0L)
  private val dt = Expressions.column("dt")
  private val lit = Expressions.literal(UTF8String.fromString("2024-01-01"))
  private def pred(name: String, children: Expression*) = new Predicate(name, children.toArray)

  test("a null-safe partition equality, as Spark expands it, becomes an exact filter") {
    val expanded = new Or(
      new And(new And(pred("IS_NOT_NULL", dt), pred("IS_NOT_NULL", lit)), pred("=", dt, lit)),
      new And(pred("IS_NULL", dt), pred("IS_NULL", lit)))
    val v1 = V2Filters.toV1(expanded)
    assert(v1.isDefined, s"not translated: $expanded")
    val converted = new FilterConverter(schema).convert(v1.get)
    assert(converted.isDefined, s"not converted: ${v1.get}")
    assert(P.fields(converted.get) == Set(1))
  }

  test("a static partition spec arrives as <=> and converts to equality") {
    val v1 = V2Filters.toV1(pred("<=>", dt, lit))
    assert(v1.contains(sources.EqualNullSafe("dt", UTF8String.fromString("2024-01-01"))))
    assert(new FilterConverter(schema).convert(v1.get).contains(P.Compare(P.Eq, 1, UTF8String.fromString("2024-01-01"))))
  }

  test("predicates over expressions are not translated") {
    assert(V2Filters.toV1(pred("=", pred("UPPER", dt), lit)).isEmpty)
  }

  test("V1 equality over a string column converts its literal") {
    val converted = new FilterConverter(schema).convert(sources.EqualTo("dt", UTF8String.fromString("x")))
    assert(converted.contains(P.Compare(P.Eq, 1, UTF8String.fromString("x"))))
  }
}
