package paimonspark.table

/**
 * Filters the planner understands, over table columns by index, with literals in Spark's internal
 * representation. They only decide which files to read; rows are still filtered after reading.
 */
sealed trait Predicate

object Predicate {
  sealed trait Op
  case object Eq extends Op
  case object NotEq extends Op
  case object Lt extends Op
  case object LtEq extends Op
  case object Gt extends Op
  case object GtEq extends Op

  final case class Constant(value: Boolean) extends Predicate
  final case class Compare(op: Op, field: Int, literal: Any) extends Predicate
  final case class In(field: Int, literals: Seq[Any]) extends Predicate
  final case class IsNull(field: Int) extends Predicate
  final case class IsNotNull(field: Int) extends Predicate
  final case class And(left: Predicate, right: Predicate) extends Predicate
  final case class Or(left: Predicate, right: Predicate) extends Predicate
  final case class Not(child: Predicate) extends Predicate

  def fields(p: Predicate): Set[Int] = p match {
    case Constant(_) => Set.empty
    case Compare(_, f, _) => Set(f)
    case In(f, _) => Set(f)
    case IsNull(f) => Set(f)
    case IsNotNull(f) => Set(f)
    case And(l, r) => fields(l) ++ fields(r)
    case Or(l, r) => fields(l) ++ fields(r)
    case Not(c) => fields(c)
  }
}

/**
 * What is known of one column in one file: bounds (null when unknown) and null count. A
 * partition column is known exactly: its bounds are its value.
 */
final case class ColumnRange(min: Any, max: Any, nullCount: Option[Long], rowCount: Long) {
  def allNull: Boolean = nullCount.contains(rowCount)
  def bounded: Boolean = min != null && max != null
}

object ColumnRange {
  /** Nothing known of the column but how many rows there are. */
  def unknown(rowCount: Long): ColumnRange = ColumnRange(null, null, None, rowCount)
}

/** Decides, from column ranges, whether a file may hold a row matching a predicate. */
final class RangeFilter(orderings: Int => Option[Ordering[Any]]) {
  import Predicate._

  def mayMatch(p: Predicate, range: Int => ColumnRange): Boolean = p match {
    case Constant(v) => v
    case And(l, r) => mayMatch(l, range) && mayMatch(r, range)
    case Or(l, r) => mayMatch(l, range) || mayMatch(r, range)
    case Not(c) => mayMatch(negate(c), range)
    case IsNull(f) => range(f).nullCount.forall(_ > 0)
    case IsNotNull(f) => !range(f).allNull
    case Compare(op, f, lit) => compare(op, range(f), lit, orderings(f))
    case In(f, lits) =>
      val r = range(f)
      lits.filter(_ != null).exists(l => compare(Eq, r, l, orderings(f)))
  }

  private def compare(op: Op, r: ColumnRange, lit: Any, ordering: Option[Ordering[Any]]): Boolean =
    if (lit == null || r.allNull) false
    else if (!r.bounded || ordering.isEmpty) true
    else {
      val o = ordering.get
      op match {
        case Eq => o.lteq(r.min, lit) && o.gteq(r.max, lit)
        case NotEq => !(o.equiv(r.min, lit) && o.equiv(r.max, lit))
        case Lt => o.lt(r.min, lit)
        case LtEq => o.lteq(r.min, lit)
        case Gt => o.gt(r.max, lit)
        case GtEq => o.gteq(r.max, lit)
      }
    }

  /** NOT pushed to the leaves; a NOT over IN has no range form and so keeps every file. */
  private def negate(p: Predicate): Predicate = p match {
    case And(l, r) => Or(Not(l), Not(r))
    case Or(l, r) => And(Not(l), Not(r))
    case Not(c) => c
    case Constant(v) => Constant(!v)
    case IsNull(f) => IsNotNull(f)
    case IsNotNull(f) => IsNull(f)
    case Compare(op, f, lit) =>
      val flipped = op match {
        case Eq => NotEq
        case NotEq => Eq
        case Lt => GtEq
        case LtEq => Gt
        case Gt => LtEq
        case GtEq => Lt
      }
      Compare(flipped, f, lit)
    case In(f, _) => IsNotNull(f)
  }
}
