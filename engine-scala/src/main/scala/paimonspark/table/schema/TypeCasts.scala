package paimonspark.table.schema

import paimonspark.format.{AtomicType, DataType, TypeRoot}
import paimonspark.format.TypeRoot._

/**
 * The column type changes Paimon accepts: a change is allowed when its cast is implicit (a
 * widening), or explicit and explicit casts are not disabled (`disable-explicit-type-casting`), and
 * Paimon has a cast that reads old values in the new type. Only the type root counts; lengths,
 * precisions and scales may go either way. Arrays, maps and rows never change type as a whole:
 * their nested fields do, one by one.
 */
object TypeCasts {
  private val integers: Set[TypeRoot] = Set(TinyInt, SmallInt, Int, BigInt)
  private val numbers: Set[TypeRoot] = integers ++ Set(Float, Double, Decimal)
  private val strings: Set[TypeRoot] = Set(Char, VarChar)
  private val timestamps: Set[TypeRoot] = Set(Timestamp, TimestampLtz)

  private def widerIntegers(to: TypeRoot): Set[TypeRoot] = Seq(TinyInt, SmallInt, Int, BigInt).takeWhile(_ != to).toSet + to

  private def implicitSources(to: TypeRoot): Set[TypeRoot] = to match {
    case Char => Set(Char)
    case VarChar => strings
    case Binary => Set(Binary)
    case VarBinary => Set(Binary, VarBinary)
    case Decimal | Double => numbers
    case TinyInt | SmallInt | Int | BigInt => widerIntegers(to)
    case Float => integers ++ Set(Float, Decimal)
    case Date => Set(Date, Timestamp)
    case Timestamp | TimestampLtz => timestamps
    case _ => Set.empty
  }

  private def explicitSources(to: TypeRoot): Set[TypeRoot] = to match {
    case Char | VarChar => numbers ++ strings ++ timestamps ++ Set(Boolean, Binary, VarBinary, Date)
    case Boolean => strings ++ integers
    case Binary => strings + VarBinary
    case VarBinary => strings
    case Decimal | Float | Double => numbers ++ strings + Boolean
    // Paimon casts timestamps to numbers only when they are INT or BIGINT.
    case Int | BigInt => numbers ++ strings ++ timestamps + Boolean
    case TinyInt | SmallInt => numbers ++ strings + Boolean
    case Date => strings ++ timestamps
    case Timestamp | TimestampLtz => strings ++ timestamps ++ Set(Date, Int, BigInt)
    case _ => Set.empty
  }

  def allowed(from: DataType, to: DataType, explicitCasts: Boolean): Boolean = (from, to) match {
    case (f: AtomicType, t: AtomicType) =>
      // Dates and timestamps become strings only as a nullable, unbounded STRING.
      val toDateString = strings(t.root) && Set[TypeRoot](Date, Timestamp, TimestampLtz)(f.root)
      if (toDateString && !(t.root == VarChar && t.precision == TypeRoot.MaxLength && t.nullable)) false
      else if (f.root == t.root && Set[TypeRoot](Boolean, Date).contains(f.root)) false
      else implicitSources(t.root)(f.root) || (explicitCasts && explicitSources(t.root)(f.root))
    case _ => false
  }

}
