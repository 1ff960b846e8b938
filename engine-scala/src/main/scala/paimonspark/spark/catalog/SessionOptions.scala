package paimonspark.spark.catalog

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.UnsupportedFeatureException
import paimonspark.table.TableOptions
import paimonspark.table.options.PaimonOptions

/**
 * Paimon's dynamic options in the session's configuration, as Paimon's Spark connector reads them:
 * `spark.paimon.<option>` applies to every table, `spark.paimon.<catalog>.<db>.<table>.<option>` to
 * that table only, over the session-wide value. Read options (`scan.snapshot-id`, ...) apply to every
 * read, below the read's own options; table options (`write-only`, `target-file-size`,
 * `snapshot.num-retained.max`, ...) apply to every read, write and procedure of the table as loaded
 * in this session, in place of the table's values, never written to it. Values are checked as
 * anywhere else; an option that shapes files already written (`bucket`, `merge-engine`, ...) cannot
 * be changed this way and is refused.
 */
object SessionOptions {
  val Prefix = "spark.paimon."

  private def session: Map[String, String] = SparkSession.getActiveSession.map(_.conf.getAll).getOrElse(Map.empty)
    .collect { case (k, v) if k.startsWith(Prefix) => k.stripPrefix(Prefix) -> v }

  /** The session's options for `table` (`catalog.db.table`): the session-wide ones, then the table's own over them. */
  private def of(table: String, keep: String => Boolean): Map[String, String] = {
    val all = session
    val ownPrefix = s"$table."
    all.filter { case (k, _) => keep(k) } ++
      all.collect { case (k, v) if k.startsWith(ownPrefix) && keep(k.stripPrefix(ownPrefix)) => k.stripPrefix(ownPrefix) -> v }
  }

  /** `given` with the session's read options for `table` beneath it. */
  def forRead(table: String, given: CaseInsensitiveStringMap): CaseInsensitiveStringMap = {
    val read = of(table, k => PaimonOptions.get(k).exists(_.scope.read))
    if (read.isEmpty) given else new CaseInsensitiveStringMap((read ++ given.asCaseSensitiveMap().asScala).asJava)
  }

  /** The session's table options for `table`, checked. */
  def tableOptions(table: String): Map[String, String] = {
    val options = of(table, k => PaimonOptions.get(k).exists(o => o.scope.table && !o.scope.read))
    options.foreach { case (k, v) =>
      if (TableOptions.Immutable(k) || k == TableOptions.Bucket) {
        throw new UnsupportedFeatureException(s"table $table: session option '$Prefix$k' cannot change '$k', which " +
          "shapes the files the table already holds", k)
      }
      PaimonOptions.get(k).foreach(_.check(v))
    }
    options
  }
}
