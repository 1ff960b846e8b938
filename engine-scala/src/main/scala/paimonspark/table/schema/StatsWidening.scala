package paimonspark.table.schema

import paimonspark.format.{AtomicType, DataType, TypeRoot}

/**
 * File statistics of a column whose type was widened since the file was written, in the new type:
 * a widening keeps every value and their order, so the old minimum and maximum still bound the
 * column. Other type changes leave the statistics unused (never a file skipped wrongly).
 */
object StatsWidening {
  private val integers: Seq[TypeRoot] = Seq(TypeRoot.TinyInt, TypeRoot.SmallInt, TypeRoot.Int, TypeRoot.BigInt)

  def apply(from: DataType, to: DataType): Option[Any => Any] = (from, to) match {
    case (f: AtomicType, t: AtomicType) if integers.contains(f.root) && integers.indexOf(t.root) >= integers.indexOf(f.root) =>
      Some(v => integral(v.asInstanceOf[Number].longValue, t.root))
    case (f: AtomicType, t: AtomicType) if f.root == TypeRoot.Float && t.root == TypeRoot.Double =>
      Some(v => v.asInstanceOf[Float].toDouble)
    case _ => None
  }

  private def integral(v: Long, root: TypeRoot): Any = root match {
    case TypeRoot.TinyInt => v.toByte
    case TypeRoot.SmallInt => v.toShort
    case TypeRoot.Int => v.toInt
    case _ => v
  }
}
