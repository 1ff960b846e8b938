package paimonspark.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StringType

import paimonspark.format.{DataType, SparkTypes}
import paimonspark.format.row.BinaryRow

/**
 * Partition rows, keys and stats as Paimon's system tables print them: a row cast to a string is
 * `{v1, v2}` (`$files`, `$buckets`), a partition spec `k1=v1/k2=v2` (`$partitions`), a key
 * `[v1, v2]`, stats `{column=value, ...}` sorted by column name.
 */
object MetadataText {
  def value(v: Any, t: DataType): String =
    if (v == null) "null"
    // Timestamps with local time zone print in the session's zone, as Spark shows them.
    else Cast(Literal.create(v, SparkTypes.physicalType(t)), StringType, Some(SQLConf.get.sessionLocalTimeZone)).eval().toString

  def values(row: InternalRow, types: Seq[DataType]): Seq[String] =
    types.indices.map(i => if (row.isNullAt(i)) "null" else value(row.get(i, SparkTypes.physicalType(types(i))), types(i)))

  /** `{v1, v2}` of a serialized BinaryRow, or None when it has no fields. */
  def row(bytes: Array[Byte], types: Seq[DataType]): Option[String] =
    if (types.isEmpty) None else Some(values(BinaryRow.deserialize(types.map(_.withNullable(true)), bytes), types).mkString("{", ", ", "}"))

  /**
   * `k1=v1/k2=v2` of a serialized BinaryRow, a null value as `defaultName`: how `$partitions` names a
   * partition (Paimon's PartitionsTable), or None when there are no partition keys.
   */
  def spec(bytes: Array[Byte], keys: Seq[String], types: Seq[DataType], defaultName: String): Option[String] =
    if (types.isEmpty) None
    else {
      val row = BinaryRow.deserialize(types.map(_.withNullable(true)), bytes)
      Some(keys.indices.map { i =>
        val v = if (row.isNullAt(i)) defaultName else value(row.get(i, SparkTypes.physicalType(types(i))), types(i))
        s"${keys(i)}=$v"
      }.mkString("/"))
    }

  def key(bytes: Array[Byte], types: Seq[DataType]): Option[String] =
    if (types.isEmpty || bytes.length <= 8) None
    else Some(values(BinaryRow.deserialize(types.map(_.withNullable(true)), bytes), types).mkString("[", ", ", "]"))

  def map(entries: Seq[(String, String)]): String = entries.sortBy(_._1).map { case (k, v) => s"$k=$v" }.mkString("{", ", ", "}")
}
