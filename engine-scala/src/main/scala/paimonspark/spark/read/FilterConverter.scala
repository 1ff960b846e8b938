package paimonspark.spark.read

import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.sources
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{AtomicType, TypeRoot}
import paimonspark.format.metadata.TableSchema
import paimonspark.table.Predicate
import paimonspark.table.Predicate._

/**
 * Spark's pushed filters as planner predicates. Only what can be translated faithfully is; under
 * an AND an untranslatable side is dropped (a weaker filter keeps more files), anywhere else the
 * whole filter is left out.
 */
final class FilterConverter(schema: TableSchema) {

  def convert(filter: sources.Filter): Option[Predicate] = convert(filter, exact = false)

  private def convert(filter: sources.Filter, exact: Boolean): Option[Predicate] = filter match {
    case sources.And(l, r) =>
      (convert(l, exact), convert(r, exact)) match {
        case (Some(a), Some(b)) => Some(And(a, b))
        case (a, b) if !exact => a.orElse(b)
        case _ => None
      }
    case sources.Or(l, r) => for (a <- convert(l, exact); b <- convert(r, exact)) yield Or(a, b)
    case sources.Not(c) => convert(c, exact = true).map(Not)
    case sources.AlwaysTrue => Some(Constant(true))
    case sources.AlwaysFalse => Some(Constant(false))
    case sources.EqualTo(a, v) => compare(Eq, a, v)
    case sources.EqualNullSafe(a, null) => field(a).map(IsNull)
    case sources.EqualNullSafe(a, v) => compare(Eq, a, v)
    case sources.GreaterThan(a, v) => compare(Gt, a, v)
    case sources.GreaterThanOrEqual(a, v) => compare(GtEq, a, v)
    case sources.LessThan(a, v) => compare(Lt, a, v)
    case sources.LessThanOrEqual(a, v) => compare(LtEq, a, v)
    case sources.In(a, values) =>
      field(a).flatMap(i => {
        val lits = values.toSeq.map(v => literal(i, v))
        if (lits.forall(_.isDefined)) Some(In(i, lits.flatten)) else None
      })
    case sources.IsNull(a) => field(a).map(IsNull)
    case sources.IsNotNull(a) => field(a).map(IsNotNull)
    case _ => None
  }

  private def compare(op: Op, attribute: String, value: Any): Option[Predicate] =
    for (i <- field(attribute); lit <- literal(i, value)) yield Compare(op, i, lit)

  private def field(attribute: String): Option[Int] = Some(schema.fieldNames.indexOf(attribute)).filter(_ >= 0)

  /** The literal in the column's internal representation, or None when the types do not line up. */
  private def literal(field: Int, value: Any): Option[Any] = {
    if (value == null) return None
    val internal = CatalystTypeConverters.convertToCatalyst(value)
    val ok = schema.fields(field).dataType match {
      case a: AtomicType => (a.root, internal) match {
        case (TypeRoot.Boolean, _: Boolean) | (TypeRoot.TinyInt, _: Byte) | (TypeRoot.SmallInt, _: Short) => true
        case (TypeRoot.Int | TypeRoot.Date, _: Int) => true
        case (TypeRoot.BigInt | TypeRoot.Timestamp | TypeRoot.TimestampLtz, _: Long) => true
        case (TypeRoot.Float, _: Float) | (TypeRoot.Double, _: Double) => true
        case (TypeRoot.Decimal, _: Decimal) => true
        case (TypeRoot.VarChar, _: UTF8String) => true
        case _ => false
      }
      case _ => false
    }
    if (ok) Some(internal) else None
  }
}
