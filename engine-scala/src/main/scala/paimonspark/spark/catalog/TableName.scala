package paimonspark.spark.catalog

import paimonspark.InvalidIdentifierException

/**
 * A table name as Paimon's identifiers spell it: `t`, `t$branch_<b>`, `t$<system table>` or
 * `t$branch_<b>$<system table>`.
 */
final case class TableName(table: String, branch: Option[String], system: Option[String])

object TableName {
  val BranchPrefix = "branch_"

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
