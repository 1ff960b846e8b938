package paimonspark.table

import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.{ByteArray, UTF8String}

import paimonspark.format.{AtomicType, DataType, TypeRoot}

/** The natural order of internal values of one Paimon type, as Paimon compares keys and stats. */
object ValueOrdering {
  def of(t: DataType): Option[Ordering[Any]] = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => Some(by[Boolean])
      case TypeRoot.TinyInt => Some(by[Byte])
      case TypeRoot.SmallInt => Some(by[Short])
      case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => Some(by[Int])
      case TypeRoot.BigInt | TypeRoot.Timestamp | TypeRoot.TimestampLtz => Some(by[Long])
      case TypeRoot.Float => Some((x: Any, y: Any) => java.lang.Float.compare(x.asInstanceOf[Float], y.asInstanceOf[Float]))
      case TypeRoot.Double => Some((x: Any, y: Any) => java.lang.Double.compare(x.asInstanceOf[Double], y.asInstanceOf[Double]))
      case TypeRoot.Decimal => Some((x: Any, y: Any) => x.asInstanceOf[Decimal].compare(y.asInstanceOf[Decimal]))
      case TypeRoot.Char | TypeRoot.VarChar =>
        Some((x: Any, y: Any) => x.asInstanceOf[UTF8String].compareTo(y.asInstanceOf[UTF8String]))
      case TypeRoot.Binary | TypeRoot.VarBinary =>
        Some((x: Any, y: Any) => ByteArray.compareBinary(x.asInstanceOf[Array[Byte]], y.asInstanceOf[Array[Byte]]))
      case _ => None
    }
    case _ => None
  }

  private def by[T](implicit o: Ordering[T]): Ordering[Any] = (x: Any, y: Any) => o.compare(x.asInstanceOf[T], y.asInstanceOf[T])
}
