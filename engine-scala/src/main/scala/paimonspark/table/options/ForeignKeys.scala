package paimonspark.table.options

import paimonspark.InvalidOptionException

/**
 * Table option keys that are not Paimon's. Paimon keeps them on the table (teams record ownership and
 * lineage in them, other engines their own settings), and so does this engine, unless the key looks
 * like a misspelt Paimon option: one a small edit away from a Paimon key (`bukcet`), or one under a
 * Paimon key's dotted prefix with a rest Paimon does not have (`compaction.min.filenum`). Those are
 * refused naming the option they likely mean, since Paimon would keep them and silently do nothing.
 */
object ForeignKeys {
  private lazy val paimonKeys: Seq[String] = PaimonOptions.All.flatMap(o => o.key +: o.aliases).distinct.sorted

  /** Throws an [[InvalidOptionException]] for a key that is not Paimon's but looks like a misspelling of one. */
  def check(key: String): Unit = {
    val near = nearest(key, paimonKeys)
    if (editDistance(key.toLowerCase, near.toLowerCase) <= typosAllowed(key)) refuse(key, s"did you mean '$near'?")
    family(key).foreach { case (prefix, members) =>
      refuse(key, s"Paimon has no such option among its '$prefix*' options; did you mean '${nearest(key, members)}'?")
    }
  }

  private def refuse(key: String, hint: String): Nothing =
    throw new InvalidOptionException(key, s"unknown table option '$key': $hint")

  /** Short keys are often names of their own (`team`, `tier`): only longer ones are taken for typos. */
  private def typosAllowed(key: String): Int = if (key.length <= 3) 0 else if (key.length <= 8) 1 else 2

  /** The longest dotted prefix of `key` that Paimon keys start with, and those keys. */
  private def family(key: String): Option[(String, Seq[String])] = {
    val segments = key.split('.')
    (segments.length - 1 to 1 by -1).iterator.map(n => segments.take(n).mkString("", ".", "."))
      .map(prefix => prefix -> paimonKeys.filter(_.startsWith(prefix))).find(_._2.nonEmpty)
  }

  private def nearest(key: String, among: Seq[String]): String =
    among.minBy(k => editDistance(key.toLowerCase, k.toLowerCase))

  /** Levenshtein distance with a swap of two neighbours counting as one edit (optimal string alignment). */
  private[options] def editDistance(a: String, b: String): Int = {
    val d = Array.tabulate(a.length + 1, b.length + 1)((i, j) => if (i == 0) j else if (j == 0) i else 0)
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
      if (i > 1 && j > 1 && a(i - 1) == b(j - 2) && a(i - 2) == b(j - 1)) d(i)(j) = math.min(d(i)(j), d(i - 2)(j - 2) + 1)
    }
    d(a.length)(b.length)
  }
}
