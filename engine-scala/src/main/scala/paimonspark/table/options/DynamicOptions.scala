package paimonspark.table.options

import java.util.Locale

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/**
 * The options given to one read or one write (`spark.read.option`, `df.write.option`, a table's
 * options in SQL), checked before the read or write starts. Spark passes these together with its
 * own and other tools' options, which are left alone; a key in one of Paimon's namespaces that is
 * not one of Paimon's options is refused as unknown, so a typo is never ignored. Keys compare
 * without case, as Spark's option maps do.
 */
object DynamicOptions {
  private val byLowerKey: Map[String, PaimonOption] =
    PaimonOptions.All.flatMap(o => (o.key +: o.aliases).map(_.toLowerCase(Locale.ROOT) -> o)).toMap

  /** Keys Spark itself puts among a source's options. */
  private val SparkKeys = Set("path", "paths")

  /** The first word of every Paimon option (`scan`, `incremental`, `read`, ...): keys that start so are Paimon's. */
  private val namespaces: Set[String] = byLowerKey.keySet.map(firstWord) -- SparkKeys

  private def firstWord(key: String): String = key.split("[.-]", 2).head

  def checkRead(table: String, options: Map[String, String]): Unit = check(table, options, "read", _.read)

  def checkWrite(table: String, options: Map[String, String]): Unit = check(table, options, "write", _.write)

  /**
   * The table options among a read's options (`source.split.target-size`, ...), under their own
   * keys: given to a read, they apply to that read instead of the table's values.
   */
  def tableOptionsOfRead(options: Map[String, String]): Map[String, String] = options.flatMap { case (given, value) =>
    byLowerKey.get(given.toLowerCase(Locale.ROOT)).filter(o => o.scope.table && o.scope.read).map(_.key -> value)
  }

  private def check(table: String, options: Map[String, String], what: String, allowed: OptionScope => Boolean): Unit =
    options.toSeq.sortBy(_._1).foreach { case (given, value) =>
      val key = given.toLowerCase(Locale.ROOT)
      (if (SparkKeys(key)) None else byLowerKey.get(key).orElse(PaimonOptions.get(given))) match {
        case Some(option) if allowed(option.scope) => option.check(value)
        case Some(option) =>
          throw new UnsupportedFeatureException(s"table $table: '${option.key}' is a table option; as a $what " +
            s"option it is not supported here. Set it on the table (ALTER TABLE ... SET TBLPROPERTIES)", option.key)
        case None if namespaces(firstWord(key)) =>
          throw new InvalidOptionException(given, s"table $table: unknown $what option '$given'")
        case None => ()
      }
    }
}
