package paimonspark.spark.procedures

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types.{BooleanType, DataTypes, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.format.SparkTypes
import paimonspark.spark.LocalRows
import paimonspark.spark.write.CompactJob
import paimonspark.table.{FileStoreTable, Predicate}

/**
 * `CALL <catalog>.sys.compact(table => 'db.t', partitions => 'dt=a,h=1;dt=b', compact_strategy => 'full')`:
 * compacts a table. Primary-key tables: `full` (the default) merges every bucket into one run at the
 * top level; `minor` runs Paimon's universal picker on each bucket. Append tables: the small files
 * of each partition are rewritten once there are `compaction.min.file-num` of them, in either
 * strategy, as Paimon's own procedure does. Returns one row, `result`: whether a COMPACT snapshot
 * was committed.
 */
final class CompactProcedure(tables: String => FileStoreTable) extends UnboundProcedure with BoundProcedure {
  override def name(): String = "compact"
  override def description(): String =
    "Compacts the sorted runs of a primary-key table's buckets, or the small files of an append table"
  override def bind(inputType: StructType): BoundProcedure = this
  override def isDeterministic: Boolean = false

  override def parameters(): Array[ProcedureParameter] = Array(
    ProcedureParameter.in("table", StringType).build(),
    ProcedureParameter.in("partitions", StringType).defaultValue("NULL").build(),
    ProcedureParameter.in("compact_strategy", StringType).defaultValue("'full'").build())

  override def call(input: InternalRow): util.Iterator[Scan] = {
    val table = tables(input.getUTF8String(0).toString)
    val partitions = Option(input.getUTF8String(1)).map(_.toString)
    val full = Option(input.getUTF8String(2)).map(_.toString.trim.toLowerCase).getOrElse("full") match {
      case "full" => true
      case "minor" => false
      case other => throw new InvalidOptionException("compact_strategy",
        s"compact: compact_strategy must be 'full' or 'minor', not '$other'")
    }
    val committed = CompactJob.run(table, partitions.map(CompactProcedure.partitionFilter(table, _)), full).isDefined
    val schema = StructType(Seq(StructField("result", BooleanType, nullable = false)))
    util.List.of[Scan](LocalRows(schema, Array(InternalRow(committed)))).iterator()
  }
}

object CompactProcedure {
  /** `k1=v1,k2=v2;k1=v3`: partitions separated by `;`, each matching all of its `column=value` pairs. */
  def partitionFilter(table: FileStoreTable, spec: String): Predicate = {
    val schema = table.schema
    spec.split(";").map(_.trim).filter(_.nonEmpty).map { partition =>
      partition.split(",").map { pair =>
        pair.split("=", 2) match {
          case Array(k, v) if schema.partitionKeys.contains(k.trim) =>
            val i = schema.fieldNames.indexOf(k.trim)
            val value = v.trim
            if (value == table.options.partitionDefaultName) Predicate.IsNull(i)
            else {
              val sparkType = SparkTypes.physicalType(schema.fields(i).dataType)
              val typed = Cast(Literal(UTF8String.fromString(value), StringType), sparkType).eval()
              if (typed == null && sparkType != DataTypes.StringType) {
                throw new InvalidOptionException("partitions", s"compact: '$value' is not a valid ${sparkType.sql} " +
                  s"for partition column '${k.trim}'")
              }
              Predicate.Compare(Predicate.Eq, i, typed)
            }
          case _ => throw new InvalidOptionException("partitions", s"compact: '$pair' in partitions => '$spec' is " +
            s"not column=value over a partition column of ${table.location} (${schema.partitionKeys.mkString(", ")})")
        }
      }.reduce[Predicate](Predicate.And)
    }.reduceOption[Predicate](Predicate.Or).getOrElse(Predicate.Constant(true))
  }
}
