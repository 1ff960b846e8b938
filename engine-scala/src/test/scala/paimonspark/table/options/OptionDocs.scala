package paimonspark.table.options

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

/**
 * The parts of the user guide that list Paimon's options by what this engine does with them,
 * rendered from [[PaimonOptions]] so that the guide cannot drift from the code. Each part sits in
 * its file between `<!-- options:NAME -->` and `<!-- /options:NAME -->`; `main` rewrites them
 * (`build/sbt "engine/Test/runMain paimonspark.table.options.OptionDocs"`), and OptionDocsSuite fails when
 * one is stale.
 */
object OptionDocs {
  private def cell(text: String): String = text.replace("|", "\\|")

  private def blocks(o: PaimonOption): String =
    if (!o.scope.table) "not read (a read option, refused on reads; on a table it would change every read)"
    else Seq(Access.Read -> "read", Access.Write -> "written").collect { case (a, verb) if o.blocks(a) => verb }
      .mkString(" or ") match {
        case "" => "read and written (it changes no result here)"
        case verbs => s"not $verbs"
      }

  private def refused: String = {
    val rows = PaimonOptions.All.filter(_.support.isInstanceOf[Support.Refused]).sortBy(_.key).map { o =>
      val Support.Refused(why, acceptsDefault) = o.support
      val accepted = if (acceptsDefault) s"`${o.default.get}`" else "none"
      s"| `${o.key}` | $accepted | ${blocks(o)} | ${cell(why)} |"
    }
    ("| option | value accepted | a table another engine gave another value is | why |" +:
      "|---|---|---|---|" +: rows).mkString("\n")
  }

  private def noEffect: String = {
    val rows = PaimonOptions.All.collect { case o @ PaimonOption(_, _, _, Support.NoEffect(why), _, _, _) => o -> why }
      .sortBy(_._1.key).map { case (o, why) => s"| `${o.key}` | ${o.default.map(d => s"`$d`").getOrElse("—")} | ${cell(why)} |" }
    ("| option | Paimon's default | why it changes nothing here |" +: "|---|---|---|" +: rows).mkString("\n")
  }

  /** File, part name and its rendered content. */
  val parts: Seq[(String, String, String)] = Seq(
    ("docs/limits.md", "refused", refused),
    ("docs/limits.md", "no-effect", noEffect))

  /** The repository root: the nearest directory upwards holding docs/limits.md. */
  def root: Path = Iterator.iterate(Paths.get("").toAbsolutePath)(_.getParent).takeWhile(_ != null)
    .find(p => Files.exists(p.resolve("docs/limits.md"))).getOrElse(sys.error("docs/limits.md not found upwards"))

  private def markers(name: String) = (s"<!-- options:$name -->", s"<!-- /options:$name -->")

  /** The part `name` of `text` (between its markers, without the line breaks around it), None without markers. */
  def current(text: String, name: String): Option[String] = {
    val (begin, end) = markers(name)
    val from = text.indexOf(begin)
    val to = text.indexOf(end)
    if (from < 0 || to < from) None else Some(text.substring(from + begin.length, to).stripPrefix("\n").stripSuffix("\n"))
  }

  def main(args: Array[String]): Unit = parts.foreach { case (file, name, content) =>
    val path = root.resolve(file)
    val text = new String(Files.readAllBytes(path), UTF_8)
    val (begin, end) = markers(name)
    val (from, to) = (text.indexOf(begin), text.indexOf(end))
    if (from < 0 || to < from) sys.error(s"$file has no markers for options:$name")
    val rewritten = text.substring(0, from + begin.length) + "\n" + content + "\n" + text.substring(to)
    Files.write(path, rewritten.getBytes(UTF_8))
  }
}
