package paimonspark.spark.read

import org.apache.spark.sql.connector.expressions.{Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.sources

/**
 * DataSource V2 predicates (as Spark hands overwrite filters to a write) in the V1 filter form the
 * [[FilterConverter]] reads. Literal values stay in Spark's internal form, which the converter
 * accepts unchanged. Anything else is not translated.
 */
object V2Filters {
  def toV1(p: Predicate): Option[sources.Filter] = {
    val children = p.children().toSeq
    def column(i: Int): Option[String] = children.lift(i).collect {
      case r: NamedReference if r.fieldNames().length == 1 => r.fieldNames().head
    }
    def value(i: Int): Option[Any] = children.lift(i).collect { case l: Literal[_] => l.value() }
    def binary(make: (String, Any) => sources.Filter): Option[sources.Filter] =
      for (c <- column(0); v <- value(1)) yield make(c, v)
    def nested(i: Int): Option[sources.Filter] = children.lift(i).collect { case c: Predicate => c }.flatMap(toV1)
    def literalOnly: Boolean = children.nonEmpty && children.forall(_.isInstanceOf[Literal[_]])
    p.name() match {
      // Spark expands `k <=> 'v'` into checks on the literal itself; they are constants.
      case "IS_NULL" if literalOnly => Some(constant(value(0).contains(null)))
      case "IS_NOT_NULL" if literalOnly => Some(constant(!value(0).contains(null)))
      case "ALWAYS_TRUE" => Some(sources.AlwaysTrue)
      case "ALWAYS_FALSE" => Some(sources.AlwaysFalse)
      case "=" => binary(sources.EqualTo)
      case "<=>" => binary(sources.EqualNullSafe)
      case "<" => binary(sources.LessThan)
      case "<=" => binary(sources.LessThanOrEqual)
      case ">" => binary(sources.GreaterThan)
      case ">=" => binary(sources.GreaterThanOrEqual)
      case "IS_NULL" => column(0).map(sources.IsNull)
      case "IS_NOT_NULL" => column(0).map(sources.IsNotNull)
      case "IN" =>
        val values = children.indices.drop(1).map(value)
        column(0).filter(_ => values.forall(_.isDefined)).map(c => sources.In(c, values.flatten.toArray))
      case "AND" => for (a <- nested(0); b <- nested(1)) yield sources.And(a, b)
      case "OR" => for (a <- nested(0); b <- nested(1)) yield sources.Or(a, b)
      case "NOT" => nested(0).map(sources.Not)
      case _ => None
    }
  }

  private def constant(b: Boolean): sources.Filter = if (b) sources.AlwaysTrue else sources.AlwaysFalse
}
