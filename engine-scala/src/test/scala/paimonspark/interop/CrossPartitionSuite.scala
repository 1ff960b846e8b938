package paimonspark.interop

import java.nio.file.Files
import java.nio.file.attribute.FileTime

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes
import org.apache.spark.sql.SQLContext
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CommitConflictException, InvalidOptionException, UnsupportedFeatureException}
import paimonspark.spark.{LocalSession, SparkTable}
import paimonspark.spark.write.PaimonWriteBuilder

/**
 * Cross-partition upserts (`bucket` = -1, a primary key without the partition column): random
 * upserts that move keys between partitions, and deletes, compared with a model of Paimon's rules
 * after every commit, for each merge engine; then Paimon's Java core reads what we wrote, and we
 * move keys Java wrote.
 */
class CrossPartitionSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("cross-partition")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(table: String): Seq[Seq[Any]] =
    JavaPaimon.sorted(sql(s"SELECT k, a, b, dt FROM paimon.default.$table").map(_.toSeq))

  /** A row: key, a number, a text, the partition. */
  private type Row = (Int, Option[Int], Option[String], String)

  /** Paimon's rules: where a key already lives, and what an upsert of it makes of its row there. */
  private def upsert(engine: String, model: Map[Int, Row], row: Row): Map[Int, Row] = (engine, model.get(row._1)) match {
    case (_, None) | ("deduplicate", _) => model + (row._1 -> row)
    case ("first-row", Some(_)) => model
    case ("partial-update", Some(old)) => model + (row._1 -> (row._1, row._2.orElse(old._2), row._3.orElse(old._3), old._4))
    case (_, Some(old)) => // aggregation: a is summed, b keeps its last non-null value
      val sum = (old._2 ++ row._2).reduceOption(_ + _)
      model + (row._1 -> (row._1, sum, row._3.orElse(old._3), old._4))
  }

  private def literal(row: Row): String =
    s"(${row._1}, ${row._2.getOrElse("NULL")}, ${row._3.map(t => s"'$t'").getOrElse("NULL")}, '${row._4}')"

  private def asSeq(model: Map[Int, Row]): Seq[Seq[Any]] = JavaPaimon.sorted(model.values.toSeq.map(r =>
    Seq(r._1, r._2.map(Int.box).orNull, r._3.orNull, r._4)))

  private val engines = Map(
    "deduplicate" -> "",
    "partial-update" -> ", 'partial-update.remove-record-on-delete' = 'true'",
    "aggregation" -> ", 'fields.a.aggregate-function' = 'sum', 'aggregation.remove-record-on-delete' = 'true'",
    "first-row" -> ", 'write-only' = 'true'")

  engines.foreach { case (engine, options) =>
    test(s"$engine: random moves and deletes equal Paimon's rules after every commit; Java reads the same rows") {
      val t = s"moves_${engine.replace('-', '_')}"
      sql(s"CREATE TABLE paimon.default.$t (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
        s"TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1', 'merge-engine' = '$engine', " +
        s"'dynamic-bucket.target-row-num' = '3'$options)")
      val random = new Random(engine.hashCode)
      var model = Map.empty[Int, Row]
      // First-row reads only see compacted files; uncompacted, a write's keys are at level 0 when the
      // next write looks them up (Paimon's bootstrap reads every level).
      val lazyCompaction = engine == "first-row"
      def compact(): Unit = if (lazyCompaction) sql(s"CALL paimon.sys.compact(table => 'default.$t')")
      (1 to 5).foreach { step =>
        if (step % 3 == 0 && model.nonEmpty) {
          compact()
          val gone = random.shuffle(model.keys.toSeq).take(2)
          sql(s"DELETE FROM paimon.default.$t WHERE k IN (${gone.mkString(", ")})")
          model = model -- gone
        } else {
          val batch = random.shuffle((0 until 14).toList).take(6).map { k =>
            (k, Option.when(random.nextInt(4) > 0)(random.nextInt(100)), Option.when(random.nextInt(4) > 0)(s"t$step"),
              s"p${random.nextInt(3)}")
          }
          sql(s"INSERT INTO paimon.default.$t VALUES ${batch.map(literal).mkString(", ")}")
          model = batch.foldLeft(model)(upsert(engine, _, _))
        }
        if (!lazyCompaction || step % 2 == 0) {
          compact()
          assert(ours(t) == asSeq(model), s"step $step")
        }
      }
      compact()
      if (engine == "deduplicate") {
        // UPDATE of the partition column moves the key too.
        val k = model.keys.min
        sql(s"UPDATE paimon.default.$t SET dt = 'p9' WHERE k = $k")
        model = model + (k -> model(k).copy(_4 = "p9"))
        assert(ours(t) == asSeq(model))
      }
      // Exactly one row per key, in the partition the model says, for Java too.
      assert(java.rows(s"default.$t").map(_.take(4)) == asSeq(model))
      // New keys filled buckets of `dynamic-bucket.target-row-num` keys, then opened more.
      assert(sql(s"SELECT max(__paimon_bucket) FROM paimon.default.$t").head.getInt(0) > 0)
    }
  }

  test("Java's cross-partition table: we move its keys and Java reads one row per key") {
    val schema = Schema.newBuilder().column("k", DataTypes.INT().notNull()).column("a", DataTypes.INT())
      .column("b", DataTypes.STRING()).column("dt", DataTypes.STRING()).partitionKeys("dt").primaryKey("k")
      .option("bucket", "-1").build()
    java.createTable("default.java_written", schema)
    java.insertIntoBuckets("default.java_written", (Seq(1, 10, "x", "p0"), 0), (Seq(2, 20, "y", "p0"), 0),
      (Seq(3, 30, "z", "p1"), 0))
    assert(ours("java_written") == Seq(Seq(1, 10, "x", "p0"), Seq(2, 20, "y", "p0"), Seq(3, 30, "z", "p1")))
    sql("INSERT INTO paimon.default.java_written VALUES (1, 11, 'x2', 'p1'), (3, 31, 'z2', 'p1'), (4, 40, 'w', 'p2')")
    sql("DELETE FROM paimon.default.java_written WHERE k = 2")
    val expected = Seq(Seq(1, 11, "x2", "p1"), Seq(3, 31, "z2", "p1"), Seq(4, 40, "w", "p2"))
    assert(ours("java_written") == expected)
    assert(java.rows("default.java_written") == expected)
    // Java's compaction of what we wrote keeps one row per key.
    java.compact("default.java_written")
    assert(java.rows("default.java_written") == expected)
    assert(ours("java_written") == expected)
  }

  test("a write that looked keys up before another commit wrote rows fails at commit, and its bootstrap files go") {
    sql("CREATE TABLE paimon.default.raced (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1')")
    sql("INSERT INTO paimon.default.raced VALUES (1, 1, 'a', 'p0')")
    val table = spark.sessionState.catalogManager.catalog("paimon").asInstanceOf[TableCatalog]
      .loadTable(Identifier.of(Array("default"), "raced")).asInstanceOf[SparkTable]
    val batch = new PaimonWriteBuilder(table, "raced-query").build().toBatch
    val factory = batch.createBatchWriterFactory(null)
    val index = warehouse.resolve("default.db/raced/index")
    assert(Files.list(index).iterator().asScala.exists(_.getFileName.toString.startsWith("cross-partition-keys-")))
    // One task of the write, as Spark runs it.
    val message = spark.sparkContext.parallelize(Seq(0), 1).map { _ =>
      val writer = factory.createWriter(0, 0L)
      writer.write(new GenericInternalRow(Array[Any](1, 2, UTF8String.fromString("ours"), UTF8String.fromString("p2"))))
      writer.commit()
    }.collect().head
    // Meanwhile another writer moves key 1 to p1: ours, planned at p0, would leave it in p1 and p2.
    sql("INSERT INTO paimon.default.raced VALUES (1, 3, 'theirs', 'p1')")
    val conflict = intercept[CommitConflictException](batch.commit(Array(message)))
    assert(conflict.getMessage.contains("one writer at a time"))
    batch.abort(Array(message))
    assert(ours("raced") == Seq(Seq(1, 3, "theirs", "p1")))
    assert(!Files.list(index).iterator().asScala.exists(_.getFileName.toString.startsWith("cross-partition-keys-")))
  }

  test("bad input: sequence.field, an overwrite of some partitions; fixed buckets keep no index, as in Paimon") {
    val refused = intercept[InvalidOptionException](sql("CREATE TABLE paimon.default.sequenced (k INT NOT NULL, " +
      "ts INT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1', 'sequence.field' = 'ts')"))
    assert(refused.getMessage.contains("You can not use sequence.field in cross partition update case"))
    sql("CREATE TABLE paimon.default.overwritten (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1')")
    sql("INSERT INTO paimon.default.overwritten VALUES (1, 1, 'a', 'p0'), (2, 2, 'b', 'p1')")
    val partial = intercept[UnsupportedFeatureException](
      sql("INSERT OVERWRITE paimon.default.overwritten PARTITION (dt = 'p1') VALUES (1, 5, 'c')"))
    assert(partial.getMessage.contains("overwrite the whole table"))
    // The whole table is replaced from no key.
    sql("INSERT OVERWRITE paimon.default.overwritten VALUES (1, 9, 'z', 'p2')")
    assert(ours("overwritten") == Seq(Seq(1, 9, "z", "p2")))
    // bucket = 2: each partition buckets by the key; a key in two partitions stays in both, as Paimon's docs say.
    sql("CREATE TABLE paimon.default.fixed_cross (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    sql("INSERT INTO paimon.default.fixed_cross VALUES (1, 1, 'a', 'p0'), (1, 2, 'b', 'p1')")
    val both = Seq(Seq(1, 1, "a", "p0"), Seq(1, 2, "b", "p1"))
    assert(ours("fixed_cross") == both && java.rows("default.fixed_cross") == both)
  }

  test("cross-partition-upsert.index-ttl: keys only in files older than the TTL are not looked up, as in Paimon") {
    sql("CREATE TABLE paimon.default.ttl (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1', 'cross-partition-upsert.index-ttl' = '1 d')")
    sql("INSERT INTO paimon.default.ttl VALUES (1, 1, 'a', 'p0'), (2, 2, 'b', 'p0')")
    sql("INSERT INTO paimon.default.ttl VALUES (1, 3, 'c', 'p1')")
    assert(ours("ttl") == Seq(Seq(1, 3, "c", "p1"), Seq(2, 2, "b", "p0")))
    // Every file is older than a millisecond now: key 2 is not found, and lands in a second partition.
    sql("ALTER TABLE paimon.default.ttl SET TBLPROPERTIES ('cross-partition-upsert.index-ttl' = '1 ms')")
    Thread.sleep(5)
    sql("INSERT INTO paimon.default.ttl VALUES (2, 4, 'd', 'p1')")
    assert(ours("ttl") == Seq(Seq(1, 3, "c", "p1"), Seq(2, 2, "b", "p0"), Seq(2, 4, "d", "p1")))
  }

  test("a streaming write moves keys across micro-batches; a killed write's bootstrap files are orphans cleanup removes") {
    sql("CREATE TABLE paimon.default.streamed (k INT NOT NULL, a INT, b STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '-1')")
    implicit val context: SQLContext = spark.sqlContext
    import spark.implicits._
    val input = MemoryStream[(Int, Int, String, String)]
    val query = input.toDF().toDF("k", "a", "b", "dt").writeStream.format("paimon")
      .option("checkpointLocation", Files.createTempDirectory("cross-ckpt").toString).toTable("paimon.default.streamed")
    try {
      input.addData((1, 1, "a", "p0"), (2, 2, "b", "p0"))
      query.processAllAvailable()
      input.addData((1, 3, "c", "p1"))
      query.processAllAvailable()
      assert(ours("streamed") == Seq(Seq(1, 3, "c", "p1"), Seq(2, 2, "b", "p0")))
    } finally query.stop()
    val leftover = warehouse.resolve("default.db/streamed/index/cross-partition-keys-killed-0")
    Files.write(leftover, Array[Byte](2))
    Files.setLastModifiedTime(leftover, FileTime.fromMillis(System.currentTimeMillis() - 3L * 24 * 3600 * 1000))
    sql("CALL paimon.sys.remove_orphan_files(table => 'default.streamed')")
    assert(!Files.exists(leftover))
    assert(ours("streamed") == Seq(Seq(1, 3, "c", "p1"), Seq(2, 2, "b", "p0")))
  }
}
