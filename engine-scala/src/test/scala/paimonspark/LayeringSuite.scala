package paimonspark

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The dependency rule of docs/architecture.md, read from the sources: the layers depend one way
 * (`spark → catalog → table → lsm → format → fs`), and so do the rooms of the table core and of the
 * format. A file
 * that imports or names a package against the flow fails this suite, naming the file and the
 * package, so the rule holds without anyone watching.
 */
class LayeringSuite extends AnyFunSuite {
  /** What each package may use besides itself, the engine's root package and other libraries. */
  private val allowed: Map[String, Set[String]] = {
    val below = Seq("fs", "format", "lsm", "table", "catalog", "spark")
    val layers = below.zipWithIndex.map { case (layer, i) => layer -> below.take(i).toSet }.toMap
    val tableRooms = Map(
      "table.options" -> Set[String](),
      "table" -> Set("table.options"),
      "table.schema" -> Set("table", "table.options"),
      "table.history" -> Set("table", "table.options", "table.iceberg"),
      "table.scan" -> Set("table", "table.options", "table.schema"),
      "table.changes" -> Set("table", "table.options", "table.scan"),
      "table.iceberg" -> Set("table", "table.options", "table.scan"),
      "table.write" -> Set("table", "table.options", "table.scan", "table.history", "table.iceberg"),
      "table.compact" -> Set("table", "table.options", "table.scan", "table.write"))
    // The format's rooms: what every format shares (types, statistics, the writer's contract, file names),
    // binary rows and the bucket hashes over them, the table's metadata files, each file format's encoding,
    // and the files room that opens a data file of any of them.
    val formatRooms = Map(
      "format" -> Set[String](),
      "format.row" -> Set("format"),
      "format.metadata" -> Set("format", "format.row"),
      "format.parquet" -> Set("format"),
      "format.orc" -> Set("format"),
      "format.avro" -> Set("format"),
      "format.files" -> Set("format", "format.parquet", "format.orc", "format.avro"),
      "format.iceberg" -> Set("format", "format.metadata"))
    val roomsOf = Map("table" -> tableRooms, "format" -> formatRooms)
    def rooms(layer: String) = roomsOf.get(layer).fold(Set(layer))(_.keySet)
    layers.flatMap { case (layer, lower) =>
      val outside = lower.flatMap(rooms)
      roomsOf.get(layer).fold(Map(layer -> outside))(_.map { case (room, within) => room -> (outside ++ within) })
    }
  }

  /** The room a package belongs to: `spark.read` is in `spark`, `table.scan` and `format.orc` are rooms of their own. */
  private def room(pkg: String): String = pkg.split('.').toList match {
    case (top @ ("table" | "format")) :: sub :: _ => s"$top.$sub"
    case top :: _ => top
    case Nil => ""
  }

  private val main: Path = Iterator.iterate(Paths.get("").toAbsolutePath)(_.getParent).takeWhile(_ != null)
    .map(_.resolve("engine-scala/src/main/scala/paimonspark")).find(Files.isDirectory(_))
    .getOrElse(Paths.get("src/main/scala/paimonspark"))

  private val Named = """paimonspark\.([a-z]+(?:\.[a-z]+)*)""".r

  /** Comments and string literals name packages without depending on them. */
  private def code(text: String): String = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "")
    .replaceAll("\"(?:\\\\.|[^\"\\\\\n])*\"", "\"\"")

  test("no file of the engine imports or names a package against the flow") {
    val files = Files.walk(main).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq
    assert(files.size > 100, s"sources not found under $main")
    val violations = files.flatMap { file =>
      val text = code(new String(Files.readAllBytes(file), UTF_8))
      val own = room(main.relativize(file.getParent).toString.replace('/', '.'))
      val used = Named.findAllMatchIn(text).map(_.group(1))
        .map(room).filter(r => r.nonEmpty && r != own && allowed.contains(r)).toSet
      val permitted = allowed.getOrElse(own, Set.empty)
      used.filterNot(permitted).map(r => s"${main.relativize(file)} ($own) uses $r")
    }
    assert(violations.isEmpty, violations.sorted.mkString("\n", "\n", ""))
  }

  test("the rule knows every package of the engine") {
    val packages = Files.walk(main).iterator().asScala.filter(Files.isDirectory(_)).filterNot(_ == main)
      .map(d => room(main.relativize(d).toString.replace('/', '.'))).toSet
    assert(packages.filterNot(allowed.contains).isEmpty, s"packages without a rule: ${packages.filterNot(allowed.contains)}")
  }
}
