package paimonspark.interop

import java.time.LocalDateTime
import java.util.SplittableRandom

import scala.util.Random

import org.apache.paimon.data.Timestamp
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.{DataTypes, RowKind}
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * A randomized differential test: random sequences of upserts, deletes, updates, compactions, added
 * columns and changed options, applied alternately by us and by Paimon's Java core to one table of a
 * random layout (merge engine, changelog producer, deletion vectors, buckets, partitions, file format);
 * then every snapshot is read by each engine and compared with [[TableModel]], and the changelogs of
 * tables that look keys up with each other. A failure names the seed, the layout and every step up to
 * the snapshot that differs.
 *
 * `make test` runs three fixed seeds. `PAIMON_DIFFERENTIAL_SEEDS` (`1-200` or `3,7`) and
 * `PAIMON_DIFFERENTIAL_STEPS` choose others (`make differential` runs a longer set).
 */
class DifferentialSuite extends AnyFunSuite with BeforeAndAfterAll {
  import DifferentialSuite._

  private lazy val (spark, warehouse) = LocalSession.start("differential")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private val seeds: Seq[Long] = sys.env.get("PAIMON_DIFFERENTIAL_SEEDS").map { s =>
    if (s.contains('-')) { val Array(a, b) = s.split('-').map(_.trim.toLong); a to b } else s.split(',').map(_.trim.toLong).toSeq
  }.getOrElse(Seq(1L, 6L, 16L)) // first-row, partial-update and aggregation, with three producers
  private val steps = sys.env.get("PAIMON_DIFFERENTIAL_STEPS").map(_.toInt).getOrElse(10)

  seeds.foreach { seed =>
    test(s"seed $seed (${Layout.random(random(seed))}): every snapshot of $steps random steps by both engines reads " +
      "as the model in each") {
      new Run(seed).check()
    }
  }

  private val options = Seq("num-sorted-run.compaction-trigger" -> Seq("2", "3", "5"), "target-file-size" -> Seq("1 kb", "128 mb"),
    "file.format" -> Seq("parquet", "orc", "avro"), "compaction.max-size-amplification-percent" -> Seq("50", "200"))

  private final class Run(seed: Long) {
    private val r = random(seed)
    private val layout = Layout.random(r)
    private val name = s"t$seed"
    private val model = new TableModel(layout.engine, layout.keys, layout.columns, layout.aggregates)
    private val log = scala.collection.mutable.ArrayBuffer.empty[String]
    /** Snapshot id -> the action that made it (its index in `log`), the columns it has and the rows it holds, if known. */
    private val expected = scala.collection.mutable.LinkedHashMap.empty[Long, (Int, Seq[String], Option[Seq[Seq[Any]]])]

    def check(): Unit = {
      create()
      (1 to steps).foreach(_ => step())
      expected.keys.maxOption.foreach { latest =>
        checkSnapshots()
        checkNow(latest)
        if (layout.producer != "none") checkChangelog(latest)
      }
    }

    private def failure(what: String, id: Long): String = {
      val upTo = expected(id)._1
      s"seed $seed, $layout: $what at snapshot $id (action $upTo)\n" + log.take(upTo + 1).zipWithIndex
        .map { case (s, i) => f"  $i%2d $s" }.mkString("\n")
    }

    /** Every snapshot, as of it, read by each engine as the model says (or, where it does not say, alike). */
    private def checkSnapshots(): Unit = expected.foreach { case (id, (_, columns, modelRows)) =>
      val ours = JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.$name VERSION AS OF $id").map(_.toSeq))
      val javas = java.atSnapshot(s"default.$name", id)
      val rows = modelRows.getOrElse(javas)
      verify(ours == rows, failure(s"we read ${diff(ours, rows)}", id))
      verify(javas == rows, failure(s"Java reads ${diff(javas, rows)}", id))
      verify(ours.headOption.forall(_.size == columns.size), failure(s"we read other columns than $columns", id))
    }

    /** The table as it is now: the latest snapshot read with the latest schema, which later steps may have changed. */
    private def checkNow(latest: Long): Unit = {
      val (ours, javas) = (JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.$name").map(_.toSeq)), java.rows(s"default.$name"))
      verify(ours == model.snapshot, failure(s"we read the table now as ${diff(ours, model.snapshot)}", latest))
      verify(javas == model.snapshot, failure(s"Java reads the table now as ${diff(javas, model.snapshot)}", latest))
    }

    /** Every change, streamed by each engine from the first snapshot and read by each as one batch range. */
    private def checkChangelog(latest: Long): Unit = {
      val (ourStream, javaStream) = (streamed(name), java.streamedChanges(s"default.$name"))
      verify(ourStream == javaStream, failure(s"we stream the changelog as ${diff(ourStream, javaStream)} of Java's stream",
        latest))
      // Java's batch scans of tables with deletion vectors or first-row skip level 0, and with it every
      // changelog file: its `incremental-between` finds no changes there (docs/compatibility.md).
      if (!layout.skipsLevel0) {
        val range = s"0,$latest"
        val ours = JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.`$name$$audit_log` WITH " +
          s"('incremental-between' = '$range')").map(_.toSeq))
        val batch = java.rows(s"default.$name$$audit_log", "incremental-between" -> range)
        verify(ours == batch, failure(s"we read the changelog as ${diff(ours, batch)} of Java's batch read", latest))
      }
    }

    private def create(): Unit = {
      val schema = Schema.newBuilder()
      if (layout.partitioned) schema.column("p", DataTypes.INT().notNull())
      schema.column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).column("n", DataTypes.BIGINT())
        .column("t", DataTypes.TIMESTAMP(3))
      if (layout.partitioned) schema.partitionKeys("p")
      layout.options.foreach { case (k, v) => schema.option(k, v) }
      java.createTable(s"default.$name", schema.primaryKey(layout.keys: _*).build())
      log += s"created by Java: $layout"
    }

    /** Logs an action, runs it and applies it to the model; the snapshots it made hold what the model holds then. */
    private def act(description: String)(run: => Unit)(apply: => Unit): Unit = {
      log += description
      val before = java.latestId(s"default.$name").getOrElse(0L)
      try run catch {
        case e: Exception => throw new AssertionError(s"seed $seed, $layout: action ${log.size - 1} failed\n" +
          log.zipWithIndex.map { case (s, i) => f"  $i%2d $s" }.mkString("\n"), e)
      }
      apply
      java.latestId(s"default.$name").filter(_ > before).foreach { latest =>
        // With deletion vectors or first-row readers skip level 0: a snapshot before the one that compacts a
        // write's level-0 files (both engines' writers compact them at once) holds part of the change only, which
        // the model does not say; there the engines are held to each other.
        (before + 1 to latest).foreach(id => expected(id) = (log.size - 1, model.columns,
          if (layout.skipsLevel0 && id < latest) None else Some(model.snapshot)))
      }
    }

    private def step(): Unit = {
      val byJava = layout.javaWrites && r.nextBoolean()
      val dml = layout.engine == "deduplicate" || layout.engine == "partial-update"
      r.nextInt(20) match {
        case i if i < 9 => upsert(byJava)
        case i if i < 12 && model.keysHeld.nonEmpty => delete(byJava && layout.engine == "deduplicate")
        case i if i < 14 && dml && model.keysHeld.nonEmpty => update()
        case i if i < 16 => compact(byJava)
        case 16 if model.columns.size < layout.columns.size + 2 => addColumn(byJava)
        case _ => setOption(byJava)
      }
    }

    private def who(byJava: Boolean) = if (byJava) "Java" else "us"

    private def randomRow(): Seq[Any] = {
      val key = (if (layout.partitioned) Seq(r.nextInt(2)) else Nil) :+ r.nextInt(24)
      // Times after 1970 only: before it, a fraction of a second reads a second later from ORC in Paimon's
      // engines both (docs/compatibility.md).
      def time = LocalDateTime.of(2024, 1, 1, 0, 0).plusNanos(r.nextInt(1 << 30).toLong * 1000000L)
      def orNull(v: => Any) = if (r.nextInt(4) == 0) null else v
      key ++ Seq(orNull(s"v${r.nextInt(100)}"), orNull(r.nextInt(50).toLong - 10), orNull(time)) ++
        model.columns.drop(layout.columns.size).map(_ => orNull(s"x${r.nextInt(10)}"))
    }

    private def upsert(byJava: Boolean): Unit = {
      val rows = Seq.fill(1 + r.nextInt(8))(randomRow()).groupBy(model.keyOf).values.map(_.head).toSeq
      act(s"${who(byJava)} upsert ${rows.map(_.mkString("(", ", ", ")")).mkString(" ")}") {
        if (byJava) java.write(s"default.$name", rows.map(row => RowKind.INSERT -> row.map(javaValue)))
        else sql(s"INSERT INTO paimon.default.$name VALUES ${rows.map(_.map(literal).mkString("(", ", ", ")")).mkString(", ")}")
      }(rows.foreach(model.upsert))
    }

    private def someKeys(): Seq[Seq[Any]] = r.shuffle(model.keysHeld).take(1 + r.nextInt(3)) ++
      (if (r.nextInt(3) == 0) Seq(model.keyOf(randomRow())) else Nil)

    private def delete(byJava: Boolean): Unit = {
      val keys = someKeys().distinct
      // A DELETE on an engine that takes no -D rows rewrites files, of a table compacted first (Paimon's rule).
      if (!byJava && layout.engine != "deduplicate") compact(r.nextBoolean() && layout.javaWrites)
      act(s"${who(byJava)} delete ${keys.map(_.mkString("(", ", ", ")")).mkString(" ")}") {
        if (byJava) java.write(s"default.$name", keys.map(k => RowKind.DELETE -> (k ++ model.columns.drop(k.size).map(_ => null))))
        else sql(s"DELETE FROM paimon.default.$name WHERE ${where(keys)}")
      }(keys.foreach(model.delete))
    }

    private def update(): Unit = {
      val (keys, value) = (someKeys().distinct, s"u${r.nextInt(100)}")
      act(s"us update v = $value on ${keys.map(_.mkString("(", ", ", ")")).mkString(" ")}") {
        sql(s"UPDATE paimon.default.$name SET v = '$value' WHERE ${where(keys)}")
      }(model.update("v", value, keys))
    }

    private def where(keys: Seq[Seq[Any]]): String =
      keys.map(k => layout.keys.zip(k).map { case (c, v) => s"$c = $v" }.mkString("(", " AND ", ")")).mkString(" OR ")

    private def compact(byJava: Boolean): Unit = {
      act(s"${who(byJava)} full compaction") {
        if (byJava) java.compact(s"default.$name") else sql(s"CALL paimon.sys.compact(table => 'default.$name')")
      }(())
    }

    private def addColumn(byJava: Boolean): Unit = {
      val column = s"c${model.columns.size - layout.columns.size + 1}"
      act(s"${who(byJava)} add column $column STRING") {
        if (byJava) java.alter(s"default.$name", SchemaChange.addColumn(column, DataTypes.STRING()))
        else sql(s"ALTER TABLE paimon.default.$name ADD COLUMN $column STRING")
      }(model.addColumn(column))
    }

    private def setOption(byJava: Boolean): Unit = {
      val (key, values) = pick(r, options: _*)
      val value = pick(r, values: _*)
      act(s"${who(byJava)} set '$key' = '$value'") {
        if (byJava) java.alter(s"default.$name", SchemaChange.setOption(key, value))
        else sql(s"ALTER TABLE paimon.default.$name SET TBLPROPERTIES ('$key' = '$value')")
      }(())
    }
  }

  private def sql(text: String) = spark.sql(text).collect().toSeq

  /** Every change a stream of the table's `$audit_log` reads from its first snapshot on, sorted. */
  private def streamed(table: String): Seq[Seq[Any]] = {
    val sink = s"${table}_stream"
    spark.readStream.option("scan.snapshot-id", "1").table(s"paimon.default.`$table$$audit_log`").writeStream
      .format("memory").queryName(sink).trigger(Trigger.AvailableNow()).start().awaitTermination()
    JavaPaimon.sorted(sql(s"SELECT * FROM $sink").map(_.toSeq))
  }

  /** `assert` without its echo of both sides: the message says what differs. */
  private def verify(holds: Boolean, message: => String): Unit = if (!holds) fail(message)

  private def literal(v: Any): String = v match {
    case null => "NULL"
    case s: String => s"'$s'"
    case l: Long => s"CAST($l AS BIGINT)"
    case t: LocalDateTime => s"TIMESTAMP_NTZ '$t'"
    case other => other.toString
  }

  private def javaValue(v: Any): Any = v match {
    case t: LocalDateTime => Timestamp.fromLocalDateTime(t)
    case other => other
  }

  private def diff(got: Seq[Seq[Any]], want: Seq[Seq[Any]]): String = {
    def some(rows: Seq[Seq[Any]]) = s"${rows.size} (${rows.take(6).map(_.mkString("(", ", ", ")")).mkString(" ")})"
    s"${got.size} rows, extra ${some(got.diff(want))}, missing ${some(want.diff(got))}"
  }
}

object DifferentialSuite {
  /** A table's layout: chosen once per seed. */
  final case class Layout(engine: String, producer: String, vectors: Boolean, buckets: Int,
      partitioned: Boolean, format: String) {
    def keys: Seq[String] = if (partitioned) Seq("p", "id") else Seq("id")
    def columns: Seq[String] = keys ++ Seq("v", "n", "t")
    def aggregates: Map[String, String] = if (engine == "aggregation") Map("n" -> "sum", "t" -> "max") else Map.empty
    def options: Map[String, String] = Map("merge-engine" -> engine, "changelog-producer" -> producer,
      "deletion-vectors.enabled" -> vectors.toString, "bucket" -> buckets.toString, "file.format" -> format) ++
      aggregates.map { case (c, f) => s"fields.$c.aggregate-function" -> f }
    /** Java's batch writer needs a bucket for each row: it writes fixed-bucket tables only. */
    def javaWrites: Boolean = buckets > 0
    /** Whether batch reads skip level 0, as Paimon's do with deletion vectors and for first-row. */
    def skipsLevel0: Boolean = vectors || engine == "first-row"
  }

  object Layout {
    def random(r: Random): Layout = {
      val engine = pick(r, "deduplicate", "partial-update", "aggregation", "first-row")
      val producer = if (engine == "first-row") pick(r, "none", "lookup") else pick(r, "none", "input", "lookup", "full-compaction")
      // Paimon keeps deletion vectors with the none, input and lookup producers only.
      val vectors = engine != "first-row" && producer != "full-compaction" && r.nextBoolean()
      Layout(engine, producer, vectors, pick(r, 1, 2, 2, -1), r.nextBoolean(),
        pick(r, "parquet", "parquet", "orc", "avro"))
    }
  }

  def pick[A](r: Random, as: A*): A = as(r.nextInt(as.size))

  /**
   * The draws of a seed. java.util.Random's first draws of nearby seeds are nearly the same (seeds 1 to 95 all
   * drew aggregation): the seed is mixed first.
   */
  def random(seed: Long): Random = new Random(new SplittableRandom(seed).nextLong())
}
