package paimonspark.table.options

import paimonspark.format.StatsMode

/**
 * Every option of Apache Paimon 1.4's `CoreOptions`, with what this engine does with it
 * ([[Support]]), and the few options of Paimon's Spark connector it takes too. A test holds this
 * list against the `CoreOptions` of the Java core: every key, fallback key, value kind and default.
 *
 * `implemented` options work as in Paimon (their check refuses the values that do not); `noEffect`
 * ones tune how Paimon's own runtime works and cannot change what is read or written here;
 * `refused` ones are refused on CREATE and ALTER (except their default, where that is accepted),
 * and a table that another engine gave one is refused the access its `blocks` names.
 */
object PaimonOptions extends OptionDeclarations {
  val All: Seq[PaimonOption] = StorageOptions.All ++ ProcessingOptions.All ++ HistoryAndReadOptions.All

  private val MergeColumnOption = "fields\\.(.+)\\.(aggregate-function|ignore-retract|distinct|list-agg-delimiter|sequence-group)".r

  /** Families of keys Paimon builds from names: `fields.<column>.<option>`, `file-index.<type>.<...>`, callbacks'. */
  private def family(key: String): Option[PaimonOption] = key match {
    // Checked against the columns by MergeEngineSpec.
    case MergeColumnOption(_, _) => Some(implemented(key, text))
    case k if k.startsWith("fields.") && k.endsWith(".stats-mode") => Some(implemented(k, text, check = (k, v) =>
      if (StatsMode.parse(v).isEmpty) invalid(k, v, "none, counts, full or truncate(<n>)")))
    case k if k.startsWith("fields.") => Some(refused(k, text, null, "this column option is not implemented"))
    case k if k.startsWith("file-index.") => Some(refused(k, text, null, NoFileIndexes))
    // A metastore catalog copies these to the metastore's table parameters (without the prefix
    // when `sync-all-properties` is off); nothing else reads them.
    case k if k.startsWith("hive.") => Some(implemented(k, text))
    // Handed to the format's writer as they are, as Paimon hands them.
    case k if k.startsWith("orc.") || k.startsWith("parquet.") || k.startsWith("avro.") => Some(implemented(k, text))
    // An Iceberg REST catalog's settings, for the rest-catalog storage, which is refused.
    case k if k.startsWith("metadata.iceberg.rest.") => Some(noEffect(k, text, null,
      s"it configures the rest-catalog storage of '${StorageOptions.IcebergStorage}', which is refused"))
    case k if (k.startsWith("commit.callback.") || k.startsWith("tag.callback.")) && k.endsWith(".param") =>
      Some(refused(k, text, null, "callbacks (Java classes) are not called"))
    case _ => None
  }

  private val byKey: Map[String, PaimonOption] = All.flatMap(o => (o.key +: o.aliases).map(_ -> o)).toMap

  /** The option a key names (a fallback key names its option), if Paimon has one. */
  def get(key: String): Option[PaimonOption] = byKey.get(key).orElse(family(key))

  /** The options with fallback keys resolved: `write.compaction-skip` read as `write-only`, say. */
  def canonical(options: Map[String, String]): Map[String, String] = {
    val aliased = options.flatMap { case (k, v) => byKey.get(k).filter(_.key != k).map(o => (k, o.key, v)) }
    aliased.foldLeft(options) { case (result, (alias, key, value)) =>
      (result - alias) ++ (if (result.contains(key)) Nil else Seq(key -> value))
    }
  }
}
