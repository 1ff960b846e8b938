package paimonspark.table.options

import paimonspark.UnsupportedFeatureException

/** What a table is opened for: reading (batch, changes, streams) or writing (any commit that adds or rewrites data). */
sealed trait Access
object Access {
  case object Read extends Access
  case object Write extends Access
  val None: Set[Access] = Set.empty
  val WriteOnly: Set[Access] = Set(Write)
  val ReadOnly: Set[Access] = Set(Read)
  val Both: Set[Access] = Set(Read, Write)
}

/** Where an option may be given: on a table, as a read option, as a write option. */
final case class OptionScope(table: Boolean, read: Boolean, write: Boolean)
object OptionScope {
  val Table: OptionScope = OptionScope(table = true, read = false, write = false)
  /** Paimon's scan options: given to one read; a table carrying one would change every read. */
  val Read: OptionScope = OptionScope(table = false, read = true, write = false)
  val TableAndRead: OptionScope = OptionScope(table = true, read = true, write = false)
  val TableAndWrite: OptionScope = OptionScope(table = true, read = false, write = true)
}

/** How this engine treats one of Paimon's options. */
sealed trait Support
object Support {
  /** Done as Paimon does it. `check` refuses values it does not implement (an UnsupportedFeatureException). */
  final case class Implemented(check: (String, String) => Unit) extends Support
  /** Accepted and kept, with no effect here; `why` says why that cannot change a result. */
  final case class NoEffect(why: String) extends Support
  /** Not done: refused on CREATE and ALTER, unless the value is the default and `acceptsDefault`. */
  final case class Refused(why: String, acceptsDefault: Boolean) extends Support
}

/**
 * One of Paimon's options: its key and the keys Paimon falls back to, the kind of its value, its
 * default as Paimon states it (None where Paimon derives it), and what this engine does with it.
 * `blocks` says which access to a table already carrying a refused value (set by another engine)
 * is refused, because doing it without the feature would give or leave a different result.
 */
final case class PaimonOption(key: String, kind: OptionKind, default: Option[String], support: Support,
    blocks: Set[Access] = Access.None, scope: OptionScope = OptionScope.Table, aliases: Seq[String] = Nil) {

  /** Checks a value given on CREATE, ALTER or as a read or write option. */
  def check(value: String): Unit = {
    kind.canonical(key, value)
    support match {
      case Support.Implemented(refuse) => refuse(key, value)
      case Support.NoEffect(_) => ()
      case Support.Refused(why, acceptsDefault) =>
        if (!(acceptsDefault && default.exists(d => kind.canonical(key, d) == kind.canonical(key, value)))) {
          throw new UnsupportedFeatureException(s"option '$key'${if (acceptsDefault) s"=$value" else ""} is not " +
            s"supported yet: $why", key)
        }
    }
  }

  /** The refusal a table carrying `value` meets when opened for `access`, if any. */
  def refusalOn(access: Access, value: String): Option[UnsupportedFeatureException] =
    if (!blocks.contains(access)) None
    else try { check(value); None } catch { case e: UnsupportedFeatureException => Some(e) }
}
