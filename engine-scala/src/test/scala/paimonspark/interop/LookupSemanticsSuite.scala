package paimonspark.interop

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{DataType, DataTypes}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Tables that look keys up (the `lookup` changelog producer, deletion vectors), as Paimon keeps them:
 * its readers merge a key's level-0 versions with the version of the lowest level above 0 alone,
 * which every compaction merged the older ones into. For each merge engine, with each changelog
 * producer and deletion vectors that make it look keys up: the same three commits made by us and by
 * Paimon's Java core; Java reads our table, and we read Java's, as the engine's rules say, and the
 * changelogs agree.
 * The first commit (filler keys) fills the top level, so that later ones are compacted into the
 * levels between, where the merged versions matter. There, as in Paimon, a level-0 file moved up alone
 * keeps its name (file_source APPEND) only in a deduplicate table without `sequence.field`, and is
 * rewritten merged in the others.
 */
class LookupSemanticsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("lookup-semantics")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  /** A table's columns (Spark's type, Java's), engine options, three commits after the filler, and the rows they leave. */
  private final case class Engine(name: String, columns: Seq[(String, String, DataType)], options: Map[String, String],
      commits: Seq[Seq[Seq[Any]]], expected: Seq[Seq[Any]])

  private val filler = 100 until 700

  private val engines = Seq(
    Engine("deduplicate", Seq(("id", "INT", DataTypes.INT().notNull()), ("v", "STRING", DataTypes.STRING()),
      ("ts", "INT", DataTypes.INT())), Map("sequence.field" -> "ts"),
      Seq(Seq(Seq(1, "new", 10), Seq(2, "b", 1), Seq(3, "c", 1)), Seq(Seq(1, "old", 5), Seq(2, "b2", 2), Seq(4, "d", 1)),
        Seq(Seq(3, "c3", 3), Seq(4, "d0", 0))),
      Seq(Seq(1, "new", 10), Seq(2, "b2", 2), Seq(3, "c3", 3), Seq(4, "d", 1))),
    Engine("deduplicate", Seq(("id", "INT", DataTypes.INT().notNull()), ("v", "STRING", DataTypes.STRING())), Map.empty,
      Seq(Seq(Seq(1, "a"), Seq(2, "b"), Seq(3, "c")), Seq(Seq(1, "a2"), Seq(4, "d")), Seq(Seq(2, "b3"), Seq(3, "c3"), Seq(5, "e"))),
      Seq(Seq(1, "a2"), Seq(2, "b3"), Seq(3, "c3"), Seq(4, "d"), Seq(5, "e"))),
    Engine("partial-update", Seq(("id", "INT", DataTypes.INT().notNull()), ("a", "STRING", DataTypes.STRING()),
      ("b", "INT", DataTypes.INT()), ("c", "STRING", DataTypes.STRING())), Map.empty,
      Seq(Seq(Seq(1, "a1", 10, "c1"), Seq(2, "a2", 20, "c2"), Seq(3, "a3", 30, "c3")),
        Seq(Seq(3, null, null, "c3x"), Seq(4, "a4", 40, null), Seq(1, null, 11, null)),
        Seq(Seq(3, "a3y", null, null), Seq(4, null, null, "c4"))),
      Seq(Seq(1, "a1", 11, "c1"), Seq(2, "a2", 20, "c2"), Seq(3, "a3y", 30, "c3x"), Seq(4, "a4", 40, "c4"))),
    Engine("partial-update", Seq(("id", "INT", DataTypes.INT().notNull()), ("a", "STRING", DataTypes.STRING()),
      ("g1", "INT", DataTypes.INT()), ("b", "STRING", DataTypes.STRING()), ("g2", "INT", DataTypes.INT())),
      Map("fields.g1.sequence-group" -> "a", "fields.g2.sequence-group" -> "b"),
      Seq(Seq(Seq(1, "a1", 1, "b1", 1), Seq(2, "a2", 1, "b2", 1)), Seq(Seq(1, "a0", 0, "b2", 2)),
        Seq(Seq(1, "a3", 3, "b0", 0), Seq(2, null, null, "b2x", 5))),
      Seq(Seq(1, "a3", 3, "b2", 2), Seq(2, "a2", 1, "b2x", 5))),
    Engine("aggregation", Seq(("id", "INT", DataTypes.INT().notNull()), ("s", "BIGINT", DataTypes.BIGINT()),
      ("l", "STRING", DataTypes.STRING())), Map("fields.s.aggregate-function" -> "sum", "fields.l.aggregate-function" -> "listagg"),
      Seq(Seq(Seq(1, 1L, "a"), Seq(2, 2L, "b"), Seq(3, 3L, "c")), Seq(Seq(1, 10L, "x"), Seq(3, 30L, "y"), Seq(5, 5L, "z")),
        Seq(Seq(1, 100L, "q"), Seq(5, 50L, null))),
      Seq(Seq(1, 111L, "a,x,q"), Seq(2, 2L, "b"), Seq(3, 33L, "c,y"), Seq(5, 55L, "z"))),
    Engine("first-row", Seq(("id", "INT", DataTypes.INT().notNull()), ("v", "STRING", DataTypes.STRING())), Map.empty,
      Seq(Seq(Seq(1, "first"), Seq(2, "b"), Seq(3, "c")), Seq(Seq(1, "second"), Seq(4, "d")), Seq(Seq(4, "d2"), Seq(2, "b2"))),
      Seq(Seq(1, "first"), Seq(2, "b"), Seq(3, "c"), Seq(4, "d"))))

  /**
   * The producers and deletion vectors Paimon allows with an engine where they make the table one that looks
   * keys up. Without either (the `none`, `input` and `full-compaction` producers), tables merge every level,
   * as the other interop suites and the Flink tests check; the `input` producer with deletion vectors, whose
   * changelog is its input, is left to DifferentialSuite and the Flink tests.
   */
  private def variants(engine: String): Seq[(String, Boolean)] =
    if (engine == "first-row") Seq("none" -> false, "lookup" -> false)
    else Seq("lookup" -> false, "none" -> true, "lookup" -> true)

  /** A filler row of the engine's columns: a new key, its other columns null. */
  private def fillerRow(e: Engine, id: Int): Seq[Any] = id +: e.columns.tail.map(_ => null)

  private def literal(v: Any): String = v match {
    case null => "NULL"
    case s: String => s"'$s'"
    case l: Long => s"CAST($l AS BIGINT)"
    case other => other.toString
  }

  private def sql(text: String) = spark.sql(text).collect().toSeq

  private def changes(t: String): Seq[Seq[Any]] = java.rows(s"default.$t$$audit_log", "incremental-between" ->
    s"0,${java.latestId(s"default.$t").get}")

  engines.zipWithIndex.foreach { case (e, n) =>
    variants(e.name).foreach { case (producer, vectors) =>
      val unsequenced = e.name == "deduplicate" && !e.options.contains("sequence.field")
      val variant = if (e.options.keys.exists(_.contains("sequence-group"))) " (sequence groups)"
        else if (unsequenced) " (no sequence.field)" else ""
      test(s"${e.name}$variant, " +
        s"changelog-producer $producer${if (vectors) ", deletion vectors" else ""}: each engine reads the other's table as written") {
        val options = e.options ++ Map("merge-engine" -> e.name, "bucket" -> "2", "changelog-producer" -> producer,
          "deletion-vectors.enabled" -> vectors.toString)
        val (ours, javas) = (s"ours_${n}_${producer.replace('-', '_')}_$vectors", s"java_${n}_${producer.replace('-', '_')}_$vectors")
        val properties = (options + ("primary-key" -> "id")).map { case (k, v) => s"'$k' = '$v'" }.mkString(", ")
        sql(s"CREATE TABLE paimon.default.$ours (${e.columns.map { case (c, t, _) => s"$c $t" }.mkString(", ")}) " +
          s"TBLPROPERTIES ($properties)")
        val schema = Schema.newBuilder()
        e.columns.foreach { case (c, _, t) => schema.column(c, t) }
        options.foreach { case (k, v) => schema.option(k, v) }
        java.createTable(s"default.$javas", schema.primaryKey("id").build())

        val batches = filler.map(fillerRow(e, _)) +: e.commits
        // Level-0 files must reach the levels between level 0 and the top, where the merged versions matter
        // (first-row buckets with level-0 files are compacted whole, into the top).
        val between = e.name != "first-row" && (producer == "lookup" || vectors)
        val filesSeen = batches.flatMap { rows =>
          sql(s"INSERT INTO paimon.default.$ours VALUES ${rows.map(_.map(literal).mkString("(", ", ", ")")).mkString(", ")}")
          java.insert(s"default.$javas", rows: _*)
          if (!between) Nil
          else sql(s"SELECT level, file_source FROM paimon.default.`$ours$$files`").map(r => (r.getInt(0), r.getString(1)))
        }.toSet
        val levelsSeen = filesSeen.map(_._1)
        val expected = JavaPaimon.sorted(e.expected ++ filler.map(fillerRow(e, _)))
        def ourRows(t: String) = JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.$t").map(_.toSeq))
        assert(java.rows(s"default.$ours") == expected, "Java reading our table")
        assert(ourRows(javas) == expected, "we reading Java's table")
        assert(ourRows(ours) == expected, "we reading our table")
        if (producer == "lookup") assert(changes(ours) == changes(javas), "the changelogs")
        if (between) {
          assert(levelsSeen.exists(l => l > 0 && l < 5), s"levels $levelsSeen: nothing between level 0 and the top")
          val movedUnwritten = filesSeen.exists { case (level, source) => level > 0 && level < 5 && source == "APPEND" }
          assert(movedUnwritten == unsequenced, s"files (level, source) seen: $filesSeen")
        }
      }
    }
  }
}
