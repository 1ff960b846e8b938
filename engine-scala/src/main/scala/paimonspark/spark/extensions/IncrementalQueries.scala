package paimonspark.spark.extensions

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.paimon.CatalogLookup
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.InvalidOptionException
import paimonspark.spark.catalog.TableName
import paimonspark.table.changes.ChangeRange

/**
 * Paimon's table-valued functions for incremental reads: each reads its table (named as Spark names
 * tables, a string) with one read option, exactly as that option would.
 * {{{
 *   SELECT * FROM paimon_incremental_query('t', 1, 5)              -- incremental-between = '1,5'
 *   SELECT * FROM paimon_incremental_between_timestamp('t', t1, t2) -- incremental-between-timestamp
 *   SELECT * FROM paimon_incremental_to_auto_tag('t', '2026-11-27') -- incremental-to-auto-tag
 * }}}
 */
object IncrementalQueries {
  private final case class Query(name: String, bounds: Seq[String], option: Seq[String] => (String, String))

  private val queries = Seq(
    Query("paimon_incremental_query", Seq("startSnapshotId", "endSnapshotId"),
      b => ChangeRange.BetweenKey -> b.mkString(",")),
    Query("paimon_incremental_between_timestamp", Seq("startTimestamp", "endTimestamp"),
      b => ChangeRange.BetweenTimestampKey -> b.mkString(",")),
    Query("paimon_incremental_to_auto_tag", Seq("endTagName"), b => ChangeRange.ToAutoTagKey -> b.head))

  val functions: Seq[(FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan)] = queries.map { q =>
    val usage = s"${q.name}(table, ${q.bounds.mkString(", ")}) - the table read with `${q.option(q.bounds)._1}`"
    (FunctionIdentifier(q.name), new ExpressionInfo(getClass.getName, null, q.name, usage, ""), (args: Seq[Expression]) => plan(q, args))
  }

  private def plan(q: Query, args: Seq[Expression]): LogicalPlan = {
    if (args.size != q.bounds.size + 1) {
      throw new InvalidOptionException(q.name, s"${q.name} takes ${q.bounds.size + 1} arguments: table, " +
        s"${q.bounds.mkString(", ")}; not ${args.size}")
    }
    val values = args.map {
      case e if e.foldable && e.eval() != null => e.eval().toString
      case e => throw new InvalidOptionException(q.name, s"${q.name}: every argument must be a value, not ${e.sql}")
    }
    val table = values.head
    val parts = TableName.multipart(table)
    val options = new CaseInsensitiveStringMap(Map(q.option(values.tail)).asJava)
    CatalogLookup.relation(SparkSession.active, parts, options)
  }
}
