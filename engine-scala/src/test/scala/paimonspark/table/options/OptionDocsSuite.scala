package paimonspark.table.options

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

/** The guide lists every option as the code treats it. */
class OptionDocsSuite extends AnyFunSuite {
  private def read(file: String) = new String(Files.readAllBytes(OptionDocs.root.resolve(file)), UTF_8)

  test("the refused and no-effect option tables of docs/limits.md are current") {
    OptionDocs.parts.foreach { case (file, name, content) =>
      assert(OptionDocs.current(read(file), name).contains(content),
        s"$file: options:$name is stale; run build/sbt \"engine/Test/runMain paimonspark.table.options.OptionDocs\"")
    }
  }

  test("docs/options.md describes every implemented table option") {
    val guide = read("docs/options.md")
    val missing = PaimonOptions.All.filter(o => o.scope.table && o.support.isInstanceOf[Support.Implemented])
      .map(_.key).filterNot(k => guide.contains(s"`$k`"))
    assert(missing.isEmpty, s"docs/options.md does not mention ${missing.mkString(", ")}")
  }

  test("docs/options.md describes every read and write option") {
    val guide = read("docs/options.md")
    val missing = PaimonOptions.All.filter(o => (o.scope.read || o.scope.write) && !o.scope.table &&
      !o.support.isInstanceOf[Support.Refused]).map(_.key).filterNot(k => guide.contains(s"`$k`"))
    assert(missing.isEmpty, s"docs/options.md does not mention ${missing.mkString(", ")}")
  }
}
