package paimonspark.table.options

import paimonspark.InvalidOptionException

/** Paimon's memory-size option values: `128 mb`, `256MB`, `1 gb`, `4096` (bytes). */
object MemorySize {
  private val Pattern = "(?i)\\s*(\\d+)\\s*(b|bytes|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?\\s*".r

  def parse(option: String, text: String): Long = text match {
    case Pattern(n, unit) =>
      val shift = Option(unit).map(_.toLowerCase.head) match {
        case Some('k') => 10
        case Some('m') => 20
        case Some('g') => 30
        case Some('t') => 40
        case _ => 0
      }
      n.toLong << shift
    case _ => throw new InvalidOptionException(option, s"option '$option' must be a memory size such as '128 mb', not '$text'")
  }
}
