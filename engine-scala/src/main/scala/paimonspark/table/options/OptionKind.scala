package paimonspark.table.options

import paimonspark.InvalidOptionException

/**
 * The type of an option's value, as Paimon declares it (`ConfigOption`'s class): how a value is
 * checked, and its canonical text, which lets two spellings of one value (`1 h`, `60 min`) compare
 * equal. `name` is the simple name of Paimon's class, so a test can hold each kind against Paimon's.
 */
sealed abstract class OptionKind(val name: String) {
  /** The canonical text of a well-formed value; throws [[InvalidOptionException]] naming `key` otherwise. */
  def canonical(key: String, value: String): String

  protected def malformed(key: String, value: String, expected: String): Nothing =
    throw new InvalidOptionException(key, s"option '$key' must be $expected, not '$value'")
}

object OptionKind {
  object Bool extends OptionKind("Boolean") {
    def canonical(key: String, value: String): String = value.trim.toLowerCase match {
      case b @ ("true" | "false") => b
      case _ => malformed(key, value, "true or false")
    }
  }

  final case class IntIn(min: Int = Int.MinValue, max: Int = Int.MaxValue) extends OptionKind("Integer") {
    def canonical(key: String, value: String): String = value.trim.toIntOption.filter(n => n >= min && n <= max)
      .map(_.toString).getOrElse(malformed(key, value, if (min == Int.MinValue && max == Int.MaxValue) "an integer"
        else s"an integer in [$min, ${if (max == Int.MaxValue) "2147483647" else max}]"))
  }
  val AnyInt: IntIn = IntIn()

  /**
   * `parquet.enable.dictionary`: Paimon declares it an Integer, yet its Parquet writer reads it as
   * Hadoop reads a boolean, so only `true` and `false` mean anything.
   */
  object IntegerReadAsBool extends OptionKind("Integer") {
    def canonical(key: String, value: String): String = Bool.canonical(key, value)
  }

  object LongValue extends OptionKind("Long") {
    def canonical(key: String, value: String): String =
      value.trim.toLongOption.map(_.toString).getOrElse(malformed(key, value, "an integer"))
  }

  final case class Fraction(paimonClass: String) extends OptionKind(paimonClass) {
    def canonical(key: String, value: String): String =
      value.trim.toDoubleOption.map(_.toString).getOrElse(malformed(key, value, "a number"))
  }

  object Memory extends OptionKind("MemorySize") {
    def canonical(key: String, value: String): String = MemorySize.parse(key, value).toString
  }

  object Time extends OptionKind("Duration") {
    def canonical(key: String, value: String): String = DurationText.parse(key, value).toMillis.toString
  }

  object Text extends OptionKind("String") {
    def canonical(key: String, value: String): String = value
  }

  /** One of `values`, compared without case as Paimon's enum options are. */
  final case class OneOf(paimonClass: String, values: Seq[String]) extends OptionKind(paimonClass) {
    def canonical(key: String, value: String): String =
      values.find(_.equalsIgnoreCase(value.trim)).map(_.toLowerCase)
        .getOrElse(malformed(key, value, s"one of ${values.mkString(", ")}"))
  }

  /** Paimon's per-level maps, `0:avro,3:parquet`. */
  object LevelMap extends OptionKind("Map") {
    def canonical(key: String, value: String): String = value.split(",").map(_.trim).filter(_.nonEmpty).map { entry =>
      entry.split(":", 2) match {
        case Array(level, v) if level.trim.toIntOption.exists(_ >= 0) && v.trim.nonEmpty => s"${level.trim.toInt}:${v.trim}"
        case _ => malformed(key, value, "a list of level:value pairs such as '0:avro,3:parquet'")
      }
    }.sorted.mkString(",")
  }
}
