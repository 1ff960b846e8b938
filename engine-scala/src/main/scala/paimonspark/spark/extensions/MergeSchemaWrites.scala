package paimonspark.spark.extensions

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, InsertIntoStatement, LogicalPlan, OverwriteByExpression,
  OverwritePartitionsDynamic}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.paimon.CatalogLookup

import paimonspark.spark.SparkTable
import paimonspark.spark.write.WriteEvolution
import paimonspark.table.TableOptions

/**
 * Paimon's `write.merge-schema` for DataFrame and SQL writes: a write to a Paimon table asking for it
 * (the write option `write.merge-schema` or Spark's `mergeSchema`, else the session conf
 * `spark.paimon.write.merge-schema`, else the table option) becomes a write with schema evolution,
 * as `INSERT WITH SCHEMA EVOLUTION` is. Spark then adds the new columns and widens types through the
 * catalog's ALTER TABLE before it writes, by the table's rules ([[SparkTable.supportsColumnChange]]).
 *
 * It runs with the hint rules, before the table is resolved: Spark matches a write's columns to
 * the table in the same pass that resolves the table, and fails there unless the write already
 * asks for evolution. So an unresolved table is looked up here to see whether it is a Paimon table.
 */
final class MergeSchemaWrites(session: SparkSession) extends Rule[LogicalPlan] {
  import MergeSchemaWrites._

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case a: AppendData if !a.withSchemaEvolution && asked(a.table, a.writeOptions) => a.copy(withSchemaEvolution = true)
    case o: OverwriteByExpression if !o.withSchemaEvolution && asked(o.table, o.writeOptions) =>
      o.copy(withSchemaEvolution = true)
    case o: OverwritePartitionsDynamic if !o.withSchemaEvolution && asked(o.table, o.writeOptions) =>
      o.copy(withSchemaEvolution = true)
    // SQL INSERT, before Spark turns it into one of the writes above.
    case i: InsertIntoStatement if !i.withSchemaEvolution && asked(i.table, Map.empty) => i.copy(withSchemaEvolution = true)
  }

  private def asked(relation: LogicalPlan, writeOptions: Map[String, String]): Boolean = paimonTable(relation).exists { t =>
    val requested = writeOptions.collectFirst { case (k, v) if WriteOptions.exists(_.equalsIgnoreCase(k)) => v }
    WriteEvolution.switchedOn(TableOptions.WriteMergeSchema, t.store, requested)
  }

  private def paimonTable(relation: LogicalPlan): Option[SparkTable] = relation match {
    case DataSourceV2Relation(t: SparkTable, _, _, _, _, _) => Some(t)
    // A name that does not load here fails later, in Spark's own resolution, with Spark's error.
    case u: UnresolvedRelation => CatalogLookup.load(session, u.multipartIdentifier).collect { case t: SparkTable => t }
    case _ => None
  }
}

object MergeSchemaWrites {
  /** The write options that ask for it: Paimon's name and Spark's. */
  val WriteOptions: Seq[String] = Seq(TableOptions.WriteMergeSchema, "mergeSchema")
}
