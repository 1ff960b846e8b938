package paimonspark.interop

import java.nio.ByteBuffer
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.paimon.catalog.Identifier
import org.apache.paimon.data.InternalArray
import org.apache.spark.sql.Row
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.UnsupportedFeatureException
import paimonspark.format.metadata.DeletionVector
import paimonspark.spark.LocalSession

/**
 * Tables Apache Paimon's Java core wrote with features this engine does not implement: each is
 * refused with an UnsupportedFeatureException naming the table and the feature, on read and on
 * write, and a refused write leaves every file as it was. Features that only matter to writes
 * (data files elsewhere, row ids, another bucket function) still read as Java reads them.
 */
class FeatureRefusalSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("feature-refusal")
  private lazy val java = new JavaPaimon(warehouse)
  private lazy val tables = new JavaFeatureTables(java)
  private lazy val outside = Files.createTempDirectory("external-data")
  /** Java's append table with deletion vectors, which two tests read. */
  private lazy val dvAppend = tables.dvAppend()

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))

  /** The UnsupportedFeatureException somewhere in what `body` throws (Spark may wrap it). */
  private def refusal(body: => Any): UnsupportedFeatureException = {
    val thrown = intercept[Throwable](body)
    Iterator.iterate[Throwable](thrown)(_.getCause).takeWhile(_ != null)
      .collectFirst { case e: UnsupportedFeatureException => e }
      .getOrElse(fail(s"not refused as an unsupported feature: $thrown", thrown))
  }

  /** Every file under `dirs` with its size and modification time. */
  private def files(dirs: Path*): Map[String, (Long, Long)] = dirs.flatMap { dir =>
    Files.walk(dir).iterator().asScala.filter(Files.isRegularFile(_))
      .map(p => p.toString -> (Files.size(p), Files.getLastModifiedTime(p).toMillis))
  }.toMap

  private def tableDir(name: String): Path = warehouse.resolve("default.db").resolve(name.stripPrefix("default."))

  /** `body` is refused naming `table` and `feature`, and changes no file of the table (nor `also`). */
  private def refused(table: FeatureTable, feature: String, also: Path*)(body: String => Any): Unit = {
    val before = files(tableDir(table.name) +: also: _*)
    val e = refusal(body(s"paimon.${table.name}"))
    assert(e.value == feature, e.getMessage)
    assert(e.getMessage.contains(table.name.stripPrefix("default.")), e.getMessage)
    assert(files(tableDir(table.name) +: also: _*) == before, "a refused statement changed files")
  }

  private def read(t: String) = spark.sql(s"SELECT * FROM $t").collect()
  private def insert(values: String)(t: String) = spark.sql(s"INSERT INTO $t VALUES $values").collect()

  test("deleted rows never come back: an append table with deletion vectors reads and streams as Java reads it") {
    val t = dvAppend
    assert(java.rows(t.name).size == t.javaRowCount && t.javaRowCount < 1200)
    assert(ours(s"SELECT * FROM paimon.${t.name}") == java.rows(t.name))
    // Filters are not pushed into files with vectors: positions stay whole, and Spark filters the rows.
    assert(ours(s"SELECT count(*) FROM paimon.${t.name} WHERE id < 10") ==
      Seq(Seq(java.rows(t.name).count(_.head.asInstanceOf[Int] < 10).toLong)))
    // Row by row as in batches.
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", "false")
    try assert(ours(s"SELECT * FROM paimon.${t.name}") == java.rows(t.name))
    finally spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
    // 64-bit vectors too.
    val wide = tables.dvAppend(bitmap64 = true)
    assert(ours(s"SELECT * FROM paimon.${wide.name}") == java.rows(wide.name) && wide.javaRowCount == t.javaRowCount)
    val range = spark.sql(s"SELECT file_name, inline(dv_ranges) FROM paimon.default.`dv_append64$$table_indexes`").head()
    val index = Files.readAllBytes(tableDir(wide.name).resolve("index").resolve(range.getString(0)))
    assert(Integer.reverseBytes(ByteBuffer.wrap(index).getInt(range.getInt(2) + 4)) == DeletionVector.Magic64)
    // A stream's first read of the whole table applies them too.
    val query = spark.readStream.table(s"paimon.${t.name}").writeStream.format("memory").queryName("dv_stream")
      .trigger(Trigger.AvailableNow()).start()
    try query.processAllAvailable() finally query.stop()
    query.exception.foreach(throw _)
    assert(ours("SELECT * FROM dv_stream") == java.rows(t.name))
    assert(ours(s"SELECT * FROM paimon.default.`dv_append$$audit_log`") == java.rows(s"${t.name}$$audit_log"))
  }

  test("$table_indexes lists Java's deletion-vector files as Java does, and each vector reads as its manifest says") {
    val t = dvAppend
    val name = s"paimon.default.`${t.name.stripPrefix("default.")}$$table_indexes`"
    // Java's seven columns and ours; each row's dv_ranges as (data file, offset, length, cardinality) lists.
    assert(spark.table(name).columns.toSeq ==
      java.catalog.getTable(Identifier.fromString(s"${t.name}$$table_indexes")).rowType().getFieldNames.asScala)
    val mine = JavaPaimon.sorted(spark.table(name).collect().toSeq.map { r =>
      r.toSeq.init :+ Option(r.getSeq[Row](6)).map(_.map(v => v.toSeq)).orNull
    })
    val javas = JavaPaimon.sorted(java.rows(s"${t.name}$$table_indexes").map { r =>
      r.init :+ Option(r.last.asInstanceOf[InternalArray]).map(a => (0 until a.size).map { i =>
        val v = a.getRow(i, 4)
        Seq(v.getString(0).toString, v.getInt(1), v.getInt(2), if (v.isNullAt(3)) null else v.getLong(3))
      }).orNull
    })
    assert(mine.nonEmpty && javas == mine)
    val ranges = spark.sql(s"SELECT file_name, inline(dv_ranges) FROM $name").collect()
    assert(ranges.nonEmpty)
    ranges.foreach { r =>
      val bytes = Files.readAllBytes(tableDir(t.name).resolve("index").resolve(r.getString(0)))
      val vector = DeletionVector.read(bytes, r.getInt(2), r.getInt(3), r.getString(0))
      assert(vector.cardinality == r.getLong(4), s"the vector of ${r.getString(1)}")
    }
  }

  test("a primary-key table with deletion vectors reads as Java reads it at every snapshot, level-0 files hidden " +
    "until compacted") {
    val t = tables.dvPrimaryKey()
    val name = s"paimon.${t.name}"
    assert(java.rows(t.name).size == t.javaRowCount)
    java.snapshotIds(t.name).foreach { id =>
      assert(ours(s"SELECT * FROM $name VERSION AS OF $id") == java.atSnapshot(t.name, id), s"snapshot $id")
    }
    val table = t.name.stripPrefix("default.")
    // Java's compactions left level-0 files and vectors both: the read above skipped the one and applied the other.
    assert(ours(s"SELECT count(*) FROM paimon.default.`$table$$files` WHERE level = 0").head.head != 0L)
    assert(ours(s"SELECT count(*) FROM paimon.default.`$table$$table_indexes`").head.head != 0L)
    assert(ours(s"SELECT * FROM paimon.default.`$table$$ro`") == java.rows(s"${t.name}$$ro"))
    assert(ours(s"SELECT name FROM $name WHERE id <= 10") == java.rows(t.name).filter(_.head.asInstanceOf[Int] <= 10)
      .map(_.drop(1)))
    // `$audit_log` too: the files above level 0 less their marked rows, each row with the kind it was written with.
    assert(ours(s"SELECT * FROM paimon.default.`$table$$audit_log`") == java.rows(s"${t.name}$$audit_log"))
  }

  // What each table has, how to build it, the feature a refusal names, and a row to insert.
  private val refusedOnReadAndWrite: Seq[(String, () => FeatureTable, String, String)] = Seq(
    ("files holding some of a row's columns (data evolution)", () => tables.dataEvolution(), "data-evolution.enabled",
      "(5000, 'ours', 'note')"),
    ("an index type this engine does not know (a btree global index)", () => tables.unknownIndex(), "btree",
      "(5000, 'ours')"))

  refusedOnReadAndWrite.foreach { case (what, make, feature, row) =>
    test(s"$what: refused on read and write") {
      val t = make()
      refused(t, feature)(read)
      refused(t, feature)(insert(row))
    }
  }

  test("BLOB and VARIANT columns are refused when the table is loaded") {
    val (blob, variant) = (tables.blobTable(), tables.variantTable())
    refused(blob, "BLOB")(read)
    refused(blob, "BLOB")(t => spark.sql(s"INSERT INTO $t SELECT 5, 'x', NULL"))
    refused(variant, "VARIANT")(read)
    refused(variant, "VARIANT")(t => spark.sql(s"INSERT INTO $t SELECT 5, NULL"))
  }

  test("data files elsewhere and row ids read as Java reads them; writes are refused; Java's mod buckets are written to") {
    val external = tables.externalPaths(outside)
    assert(ours(s"SELECT * FROM paimon.${external.name}") == java.rows(external.name))
    refused(external, "data-file.external-paths", outside)(insert("(5000, 'ours')"))

    val tracked = tables.rowTracking()
    assert(ours(s"SELECT * FROM paimon.${tracked.name}") == java.rows(tracked.name))
    refused(tracked, "row-tracking.enabled")(insert("(5000, 'ours')"))

    // The default hash would look for these keys in other buckets: a point read must still find each.
    val mod = tables.modBucket()
    assert(ours(s"SELECT * FROM paimon.${mod.name}") == java.rows(mod.name))
    tables.modBucketIds.foreach { id =>
      assert(ours(s"SELECT * FROM paimon.${mod.name} WHERE id = $id") == Seq(Seq(id, s"row-$id")), s"key $id")
    }
    // Written to now: our row lands in the bucket Java reads it from, floorMod(id, 4).
    insert("(5003, 'ours')")(s"paimon.${mod.name}")
    assert(java.buckets(mod.name)(Seq(5003, "ours")) == 3)
  }
}
