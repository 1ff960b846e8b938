package paimonspark.spark.catalog

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.table.options.PaimonOptions

/**
 * Paimon's dynamic options in the session's configuration, as Paimon's Spark connector reads them:
 * `spark.paimon.<option>` applies to every read of every table, `spark.paimon.<catalog>.<db>.<table>.<option>`
 * to that table's reads only. Options given to the read itself win over both, the table's over the
 * session-wide. They are checked as any read option is: a malformed value is refused.
 */
object SessionOptions {
  val Prefix = "spark.paimon."

  /** `given` with the session's dynamic options for `table` (`catalog.db.table`) beneath it. */
  def forRead(table: String, given: CaseInsensitiveStringMap): CaseInsensitiveStringMap = {
    val session = SparkSession.getActiveSession.map(_.conf.getAll).getOrElse(Map.empty[String, String])
      .filter(_._1.startsWith(Prefix)).map { case (k, v) => k.stripPrefix(Prefix) -> v }
    val ownPrefix = s"$table."
    val forTable = session.collect { case (k, v) if k.startsWith(ownPrefix) => k.stripPrefix(ownPrefix) -> v }
    val everywhere = session.filter { case (k, _) => PaimonOptions.get(k).exists(_.scope.read) }
    if (forTable.isEmpty && everywhere.isEmpty) given
    else new CaseInsensitiveStringMap((everywhere ++ forTable ++ given.asCaseSensitiveMap().asScala).asJava)
  }
}
