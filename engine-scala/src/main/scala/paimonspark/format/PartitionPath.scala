package paimonspark.format

import java.time.{LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Partition directory names exactly as Java Paimon computes them with `partition.legacy-name=true`
 * (the default): `name=value` segments joined by `/`, the value being Java's `toString` of the
 * internal value (DATE as days since epoch), escaped like `PartitionPathUtils.escapePathName`.
 * Readers rebuild file paths from the partition row, so any difference here loses files.
 */
object PartitionPath {
  val DefaultPartitionName = "__DEFAULT_PARTITION__"

  private val escaped: Set[Char] = "\"#%'*/:=?\\{}[]^".toSet

  def escape(text: String): String = {
    val sb = new StringBuilder
    text.foreach { c =>
      if (c < 0x20 || c == 0x7f || escaped.contains(c)) sb.append(f"%%${c.toInt}%02X") else sb.append(c)
    }
    sb.toString
  }

  /** The relative directory of one partition; empty for an unpartitioned table. */
  def of(names: Seq[String], types: Seq[DataType], row: InternalRow, defaultName: String): String =
    ofValues(names, values(types, row, defaultName))

  /** The relative directory of the partition whose columns `names` hold `values`, spelt as directory names. */
  def ofValues(names: Seq[String], values: Seq[String]): String =
    names.zip(values).map { case (n, v) => s"${escape(n)}=${escape(v)}" }.mkString("/")

  /** The partition's values as its directory name spells them, unescaped (as a metastore records them). */
  def values(types: Seq[DataType], row: InternalRow, defaultName: String): Seq[String] =
    types.indices.map { i =>
      val text = if (row.isNullAt(i)) None else Some(valueText(types(i), row, i))
      text.filterNot(_.trim.isEmpty).getOrElse(defaultName)
    }

  /** Java's `toString` of one internal partition value. */
  def valueText(t: DataType, row: InternalRow, i: Int): String = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Char | TypeRoot.VarChar => row.getUTF8String(i).toString
      case TypeRoot.Boolean => row.getBoolean(i).toString
      case TypeRoot.TinyInt => row.getByte(i).toString
      case TypeRoot.SmallInt => row.getShort(i).toString
      case TypeRoot.Int | TypeRoot.Date | TypeRoot.Time => row.getInt(i).toString
      case TypeRoot.BigInt => row.getLong(i).toString
      case TypeRoot.Float => java.lang.Float.toString(row.getFloat(i))
      case TypeRoot.Double => java.lang.Double.toString(row.getDouble(i))
      case TypeRoot.Decimal => row.getDecimal(i, a.precision, a.scale).toJavaBigDecimal.toPlainString
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz =>
        val micros = row.getLong(i)
        LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L),
          (Math.floorMod(micros, 1000000L) * 1000L).toInt, ZoneOffset.UTC).toString
      case other => throw new UnsupportedOperationException(s"type ${other.keyword} cannot be a partition column")
    }
    case other => throw new UnsupportedOperationException(s"type ${other.sql} cannot be a partition column")
  }
}
