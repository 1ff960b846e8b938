package paimonspark.table.options

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.table.options.OptionKind._

/**
 * How the lists of Paimon's options are written: one call per option saying what this engine does
 * with it, and the reasons several options share.
 */
private[table] trait OptionDeclarations {
  protected val none: (String, String) => Unit = (_, _) => ()

  protected def implemented(key: String, kind: OptionKind, default: String = null, check: (String, String) => Unit = none,
      blocks: Set[Access] = Access.None, scope: OptionScope = OptionScope.Table, aliases: Seq[String] = Nil) =
    PaimonOption(key, kind, Option(default), Support.Implemented(check), blocks, scope, aliases)

  protected def noEffect(key: String, kind: OptionKind, default: String, why: String, scope: OptionScope = OptionScope.Table,
      aliases: Seq[String] = Nil) = PaimonOption(key, kind, Option(default), Support.NoEffect(why), Access.None, scope, aliases)

  /** Refused unless it has its default value (none: refused whenever set). */
  protected def refused(key: String, kind: OptionKind, default: String, why: String, blocks: Set[Access] = Access.None,
      scope: OptionScope = OptionScope.Table, aliases: Seq[String] = Nil, acceptsDefault: Boolean = true) =
    PaimonOption(key, kind, Option(default), Support.Refused(why, acceptsDefault && default != null), blocks, scope,
      aliases)

  protected def unsupported(key: String, value: String, why: String): Nothing =
    throw new UnsupportedFeatureException(s"option '$key'=$value is not supported yet: $why", key)

  protected def invalid(key: String, value: String, expected: String): Nothing =
    throw new InvalidOptionException(key, s"option '$key' must be $expected, not '$value'")

  protected val positiveSize: (String, String) => Unit =
    (k, v) => if (MemorySize.parse(k, v) <= 0) invalid(k, v, "a positive memory size")

  protected def only(supported: String*)(why: String): (String, String) => Unit = (k, v) =>
    if (!supported.exists(_.equalsIgnoreCase(v.trim))) unsupported(k, v, why)

  protected val memory: OptionKind = Memory
  protected val bool: OptionKind = Bool
  protected val text: OptionKind = Text
  protected val time: OptionKind = Time
  protected def positive: OptionKind = IntIn(1)
  protected def enumOf(paimonClass: String, values: String*): OptionKind = OneOf(paimonClass, values)

  protected val ResultsStay = "it tunes Paimon's own runtime (memory, threads, caches, I/O) and changes no result"
  protected val FlinkOnly = "it configures a Flink job (watermarks, checkpoints, its sinks' parallelism)"
  protected val NoFileIndexes = "this engine writes no file indexes; readers that skip without them read the same rows"
  protected val Lookup = "the lookup changelog producer here probes data files directly, without Paimon's lookup cache"
  protected val Variant = "it applies to VARIANT columns, which are refused on their own"
  protected val Blob = "it applies to BLOB columns, which are refused on their own"
  protected val Global = "it applies to global indexes, whose index files are refused on their own"
  protected val Clustering = "clustering (sorting append files by columns) is not implemented"

  protected def zone(key: String, value: String): Unit =
    try { java.time.ZoneId.of(value.trim); () }
    catch { case _: java.time.DateTimeException => invalid(key, value, "a time zone such as 'UTC' or 'Europe/Berlin'") }
}
