package paimonspark.spark.extensions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.{ResolvedPartitionSpec, ResolvedTable}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{DescribeRelation, DescribeTablePartition, LogicalPlan}
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.v2.{DescribeTableExec, DescribeTablePartitionExec, LeafV2CommandExec,
  V2CommandExec}
import org.apache.spark.sql.types.StructType

import paimonspark.spark.SparkTable

/**
 * `DESCRIBE TABLE EXTENDED` of a Paimon table (and of one of its partitions) as Paimon's Spark
 * connector gives it (its `PaimonDescribeTableExec`): Spark's own description, then a
 * `# Column Not Null` section naming each NOT NULL column with its type, for which Spark's has no
 * place. Planned as Spark plans the statement, so only the section is ours.
 */
object DescribeNotNullColumns extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case DescribeRelation(ResolvedTable(catalog, ident, table: SparkTable, _), true, output) =>
      Seq(DescribeWithNotNullExec(DescribeTableExec(output, catalog.name(), ident, table, isExtended = true), table.schema()))
    case DescribeTablePartition(ResolvedTable(_, ident, table: SparkTable, _), spec: ResolvedPartitionSpec, true, output) =>
      Seq(DescribeWithNotNullExec(DescribeTablePartitionExec(output, table, ident, spec, isExtended = true), table.schema()))
    case _ => Nil
  }
}

/** The rows of `describe`, then the `# Column Not Null` section of `columns`, when one of them is NOT NULL. */
final case class DescribeWithNotNullExec(describe: V2CommandExec, columns: StructType) extends LeafV2CommandExec {
  override def output: Seq[Attribute] = describe.output

  override def run(): Seq[InternalRow] = {
    val notNull = columns.fields.toSeq.filterNot(_.nullable)
    val section = if (notNull.isEmpty) Nil
      else toCatalystRow("# Column Not Null", "", "") +: notNull.map(c => toCatalystRow(c.name, c.dataType.simpleString, "NOT NULL"))
    describe.executeCollect().toSeq ++ section
  }
}
