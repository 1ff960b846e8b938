package paimonspark.spark.procedures

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.types.{DataTypes, StringType}
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.format.SparkTypes
import paimonspark.spark.SparkSchemas
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.scan.{DataSplit, PartitionFilter, ScanPlanner}

/**
 * The partitions a procedure's `partitions` (`'k1=v1,k2=v2;k1=v3'`) or `where` (a SQL predicate on
 * partition columns) argument selects, as a filter on the table; arguments are checked before
 * anything is done. `where` is evaluated by Spark over the partitions the table holds, so any SQL
 * Spark evaluates works, and a column that is not a partition column is refused.
 */
object PartitionSelection {
  def apply(procedure: String, table: FileStoreTable, partitions: Option[String], where: Option[String])
      : Option[Predicate] = (partitions, where) match {
    case (Some(_), Some(_)) => throw new InvalidOptionException("where", s"$procedure: partitions and where cannot be used together")
    case (Some(spec), None) => Some(parse(procedure, table, spec))
    case (None, Some(sql)) => Some(PartitionFilter.exactly(table.schema, evaluate(procedure, table, sql)))
    case (None, None) => None
  }

  /** The table's partitions (with live files) for which `keep` holds, as a filter. */
  def where(table: FileStoreTable)(keep: Seq[DataSplit] => Boolean): Predicate =
    PartitionFilter.exactly(table.schema, splits(table).groupBy(_.partition.values.toSeq).values.filter(keep).map(_.head.partition).toSeq)

  private def splits(table: FileStoreTable): Seq[DataSplit] =
    ScanPlanner.forMetadata(table).plan(table.currentSnapshot(), None)

  private def evaluate(procedure: String, table: FileStoreTable, sql: String): Seq[InternalRow] = {
    val keys = table.schema.partitionKeys
    if (keys.isEmpty) {
      throw new InvalidOptionException("where", s"$procedure: table ${table.name} is not partitioned; where => '$sql' " +
        "must be a predicate on partition columns (Table should be a partitioned table when using partition predicate.)")
    }
    val struct = SparkSchemas.partitionSchema(table.schema)
    val toRow = CatalystTypeConverters.createToScalaConverter(struct)
    val toInternal = CatalystTypeConverters.createToCatalystConverter(struct)
    val held = splits(table).map(_.partition).distinctBy(_.values.toSeq).map(p => toRow(p).asInstanceOf[Row])
    try SparkSession.active.createDataFrame(held.asJava, struct).where(sql).collect().toSeq
      .map(r => toInternal(r).asInstanceOf[InternalRow])
    catch {
      // Paimon's message first (`SparkProcedureUtils.convertToPartitionPredicate`), then what Spark found.
      case e: AnalysisException => throw new InvalidOptionException("where", s"$procedure: Only partition predicate is " +
        s"supported, your predicate is $sql, but partition keys are [${keys.mkString(", ")}]: where must be a " +
        s"predicate on the partition columns of ${table.name} only (${e.getMessage})")
    }
  }

  private def parse(procedure: String, table: FileStoreTable, spec: String): Predicate = {
    val schema = table.schema
    spec.split(";").map(_.trim).filter(_.nonEmpty).map { partition =>
      partition.split(",").map { pair =>
        pair.split("=", 2) match {
          case Array(k, v) if schema.partitionKeys.contains(k.trim) =>
            val i = schema.fieldNames.indexOf(k.trim)
            val value = unquoted(v.trim)
            if (value == table.options.partitionDefaultName) Predicate.IsNull(i)
            else {
              val sparkType = SparkTypes.physicalType(schema.fields(i).dataType)
              val typed = Cast(Literal(UTF8String.fromString(value), StringType), sparkType).eval()
              if (typed == null && sparkType != DataTypes.StringType) {
                throw new InvalidOptionException("partitions", s"$procedure: '$value' is not a valid ${sparkType.sql} " +
                  s"for partition column '${k.trim}'")
              }
              Predicate.Compare(Predicate.Eq, i, typed)
            }
          case _ => throw new InvalidOptionException("partitions", s"$procedure: '$pair' in partitions => '$spec' is " +
            s"not column=value over a partition column of ${table.location} (${schema.partitionKeys.mkString(", ")})")
        }
      }.reduce[Predicate](Predicate.And)
    }.reduceOption[Predicate](Predicate.Or).getOrElse(Predicate.Constant(true))
  }

  /** Paimon's Spark procedures turn `partitions` into SQL, so a value may be a quoted literal: `pt="p1"`. */
  private def unquoted(value: String): String =
    if (value.length >= 2 && (value.head == '"' || value.head == '\'') && value.last == value.head) value.substring(1, value.length - 1)
    else value
}
