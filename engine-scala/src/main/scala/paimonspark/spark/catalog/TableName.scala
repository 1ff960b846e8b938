package paimonspark.spark.catalog

import scala.util.Try

import org.apache.spark.sql.catalyst.parser.CatalystSqlParser

import paimonspark.InvalidIdentifierException

/**
 * A table name as Paimon's identifiers spell it: `t`, `t$branch_<b>`, `t$<system table>` or
 * `t$branch_<b>$<system table>`.
 */
final case class TableName(table: String, branch: Option[String], system: Option[String])

object TableName {
  val BranchPrefix = "branch_"

  /**
   * The parts of a table name given as text (a procedure's or a function's argument), as Spark's
   * parser reads it, backquotes included; a name it cannot read (`db.t$branch_b`) splits at dots.
   */
  def multipart(text: String): Seq[String] =
    Try(CatalystSqlParser.parseMultipartIdentifier(text)).getOrElse(text.split("\\.").map(_.trim).toSeq)

  def parse(name: String): TableName = name.split("\\$", -1).toSeq match {
    case Seq(t) => TableName(t, None, None)
    case Seq(t, b) if b.startsWith(BranchPrefix) => TableName(t, Some(branchOf(name, b)), None)
    case Seq(t, s) => TableName(t, None, Some(s.toLowerCase))
    case Seq(t, b, s) if b.startsWith(BranchPrefix) => TableName(t, Some(branchOf(name, b)), Some(s.toLowerCase))
    case _ => throw new InvalidIdentifierException(name,
      s"'$name' is not a table name: use t, t$$branch_<name>, t$$<system table> or t$$branch_<name>$$<system table>")
  }

  private def branchOf(name: String, part: String): String = {
    val b = part.substring(BranchPrefix.length)
    if (b.isEmpty) throw new InvalidIdentifierException(name, s"'$name' names an empty branch")
    b
  }
}
