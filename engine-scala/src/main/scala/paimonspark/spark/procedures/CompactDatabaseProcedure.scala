package paimonspark.spark.procedures

import java.util.regex.PatternSyntaxException

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.spark.write.CompactJob
import paimonspark.table.FileStoreTable

/**
 * `CALL sys.compact_database(including_databases, including_tables, excluding_tables, options)`:
 * compacts every table whose database matches `including_databases` and whose `db.table` matches
 * `including_tables` and not `excluding_tables` (regular expressions, every one by default), as
 * `compact` with its defaults would, with `options` for each. A table that fails is counted, not
 * fatal: the result is `Compact database finished. Success: N, Failed: M`.
 */
final class CompactDatabaseProcedure(tables: String => FileStoreTable, catalogTables: () => Seq[(String, String)])
    extends BaseProcedure(tables) {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  override def name(): String = "compact_database"
  override protected val params = Seq(optional("including_databases", StringType), optional("including_tables", StringType),
    optional("excluding_tables", StringType), optional("options", StringType))
  override protected val output = Seq(StructField("result", StringType))

  override protected def run(args: Args): Seq[InternalRow] = {
    def pattern(name: String, default: Option[String]) = args.string(name).map(_.trim).filter(_.nonEmpty).orElse(default)
      .map { p =>
        try p.r catch {
          case e: PatternSyntaxException => throw new InvalidOptionException(name, s"$name: '$p' is not a regular " +
            s"expression: ${e.getDescription}")
        }
      }
    val databases = pattern("including_databases", Some(".*")).get
    val including = pattern("including_tables", Some(".*")).get
    val excluding = pattern("excluding_tables", None)
    val options = args.options
    val chosen = catalogTables().filter { case (db, t) =>
      databases.matches(db) && including.matches(s"$db.$t") && !excluding.exists(_.matches(s"$db.$t"))
    }
    val outcomes = chosen.map { case (db, t) =>
      try {
        CompactJob.run(tables(s"$db.$t").withDynamicOptions(options), None, full = true)
        true
      } catch {
        case NonFatal(e) => log.warn(s"compact_database: compacting $db.$t failed", e); false
      }
    }
    Seq(InternalRow(UTF8String.fromString(
      s"Compact database finished. Success: ${outcomes.count(identity)}, Failed: ${outcomes.count(!_)}")))
  }
}
