package paimonspark

import java.nio.file.{Path, Paths}

/**
 * The checkout the tests run in (sbt forks them in the project or its parent), and what `make venv` put
 * there: the servers the suites start (moto, a metastore) run from its `.venv` and `tests/support`.
 */
object Checkout {
  lazy val root: Path = Iterator.iterate(Paths.get(sys.props("user.dir")).toAbsolutePath)(_.getParent)
    .takeWhile(_ != null).find(r => r.resolve(".venv/bin/python").toFile.canExecute && r.resolve("tests/support").toFile.isDirectory)
    .getOrElse(throw new IllegalStateException("no .venv/bin/python beside tests/support: run `make venv`"))

  def python: Path = root.resolve(".venv/bin/python")

  def support(file: String): Path = root.resolve("tests/support").resolve(file)

  /** The jars of the pyspark installed in .venv: Spark's runtime, Hive 2.3's metastore among them. */
  def pysparkJars: Path = Option(root.resolve(".venv/lib").toFile.listFiles()).toSeq.flatten
    .map(_.toPath.resolve("site-packages/pyspark/jars")).find(_.toFile.isDirectory)
    .getOrElse(throw new IllegalStateException("pyspark is not installed in .venv: run `make venv`"))
}
