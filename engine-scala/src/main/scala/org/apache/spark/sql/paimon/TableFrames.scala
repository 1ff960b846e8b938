package org.apache.spark.sql.paimon

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * DataFrames over a table object and columns over a Catalyst expression, which Spark keeps private to
 * its `sql` package: procedures that rewrite a table (sort compaction) query it as Spark does.
 */
object TableFrames {
  def of(session: SparkSession, table: Table): DataFrame =
    classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], DataSourceV2Relation.create(table, None, None))

  def column(expression: Expression): Column = classic.ExpressionUtils.column(expression)
}
