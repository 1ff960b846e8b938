package paimonspark.interop

import java.nio.ByteBuffer
import java.nio.file.Files
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.paimon.types.RowKind
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CorruptFileException, InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.metadata.DeletionVector
import paimonspark.spark.LocalSession

/**
 * Primary-key tables with deletion vectors written here: every write is compacted into levels
 * above 0 with the previous versions of its keys marked in the bucket's vectors, as Paimon's
 * lookup compaction does; Apache Paimon's Java core reads every snapshot as a model says, and we
 * read what it writes into such tables. Paimon's rules for the option hold on CREATE and ALTER.
 */
class DeletionVectorWriteSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("dv-writes")
  private lazy val java = new JavaPaimon(warehouse)
  private lazy val tables = new JavaFeatureTables(java)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(s: String) = spark.sql(s).collect()
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))
  private def count(query: String): Long = spark.sql(query).head().getLong(0)

  /**
   * A random walk of upserts and deletes of 40 keys in six commits, each compacted inline; the
   * model is what each engine makes of them. `deletes`: whether the engine is given deletions;
   * `everySnapshot`: whether Java and we then read each snapshot alike, compactions' included.
   */
  private def walk(table: String, options: String, deletes: Boolean, model: (Option[Seq[Any]], Seq[Any]) => Seq[Any],
      everySnapshot: Boolean = false, bitmap64: Boolean = false): Unit = {
    sql(s"CREATE TABLE paimon.default.$table (id INT, a STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', " +
      s"'bucket' = '2', 'deletion-vectors.enabled' = 'true', 'num-sorted-run.compaction-trigger' = '3'$options)")
    val random = new Random(table.hashCode)
    val state = mutable.Map.empty[Int, Seq[Any]]
    var vectors = 0L
    (1 to 4).foreach { step =>
      val ids = random.shuffle((0 until 40).toList).take(12)
      if (deletes && step % 3 == 0) {
        val gone = ids.take(5)
        sql(s"DELETE FROM paimon.default.$table WHERE id IN (${gone.mkString(", ")})")
        gone.foreach(state.remove)
      } else {
        val rows = ids.map(id => Seq[Any](id, if (random.nextInt(3) == 0) null else s"v$step-$id", (step * 100 + id).toLong))
        sql(s"INSERT INTO paimon.default.$table VALUES " + rows.map { r =>
          s"(${r(0)}, ${Option(r(1)).map(v => s"'$v'").getOrElse("CAST(NULL AS STRING)")}, ${r(2)})"
        }.mkString(", "))
        rows.foreach(r => state(r(0).asInstanceOf[Int]) = model(state.get(r(0).asInstanceOf[Int]), r))
      }
      val expected = JavaPaimon.sorted(state.values.toSeq)
      assert(ours(s"SELECT * FROM paimon.default.$table") == expected, s"$table, step $step: ours")
      assert(java.rows(s"default.$table") == expected, s"$table, step $step: Java")
      assert(count(s"SELECT count(*) FROM paimon.default.`$table$$files` WHERE level = 0") == 0, s"$table, step $step")
      val ranges = spark.sql(s"SELECT file_name, inline(dv_ranges) FROM paimon.default.`$table$$table_indexes`").collect()
      vectors = math.max(vectors, ranges.length)
      // Each vector in the layout the table asks for: the 64-bit magic is little-endian, the 32-bit one big-endian.
      ranges.foreach { r =>
        val magic = ByteBuffer.wrap(Files.readAllBytes(warehouse.resolve(s"default.db/$table/index").resolve(r.getString(0))))
          .getInt(r.getInt(2) + 4)
        assert(if (bitmap64) Integer.reverseBytes(magic) == DeletionVector.Magic64 else magic == DeletionVector.Magic32)
      }
    }
    if (everySnapshot) java.snapshotIds(s"default.$table").foreach { id =>
      assert(ours(s"SELECT * FROM paimon.default.$table VERSION AS OF $id") == java.atSnapshot(s"default.$table", id),
        s"$table, snapshot $id")
    }
    assert(vectors > 0, s"$table never had vectors")
  }

  private val upsert = (_: Option[Seq[Any]], row: Seq[Any]) => row

  test("deduplicate: Java reads the model after every commit, and every snapshot as we do") {
    walk("dedup", "", deletes = true, upsert, everySnapshot = true)
  }

  test("partial-update: a key's old columns come from the version its lookup marks") {
    walk("partial", ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
      deletes = true, (old, row) => old.fold(row)(o => row.indices.map(i => if (row(i) == null) o(i) else row(i))))
  }

  test("aggregation: sums carry over the versions marked deleted") {
    walk("aggregate", ", 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', " +
      "'fields.a.aggregate-function' = 'last_non_null_value'", deletes = false,
      (old, row) => old.fold(row)(o => Seq(row(0), Option(row(1)).getOrElse(o(1)), o(2).asInstanceOf[Long] + row(2).asInstanceOf[Long])))
  }

  test("tags, rollback and orphan cleanup keep the index files the snapshots they keep use") {
    sql("CREATE TABLE paimon.default.history (id INT, a STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
      "'deletion-vectors.enabled' = 'true')")
    sql("INSERT INTO paimon.default.history SELECT CAST(id AS INT), concat('v', id) FROM range(2000)")
    sql("INSERT INTO paimon.default.history VALUES (1, 'one'), (2, 'two')")
    assert(count("SELECT count(*) FROM paimon.default.`history$table_indexes`") == 1)
    sql("CALL paimon.sys.create_tag(table => 'default.history', tag => 'marked')")
    val marked = ours("SELECT * FROM paimon.default.history")
    sql("INSERT INTO paimon.default.history VALUES (3, 'three')")
    sql("CALL paimon.sys.compact(table => 'default.history')")
    assert(count("SELECT count(*) FROM paimon.default.`history$table_indexes`") == 0, "a full compaction needs no vector")
    sql("CALL paimon.sys.expire_snapshots(table => 'default.history', retain_max => 1, retain_min => 1)")
    val now = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
    sql(s"CALL paimon.sys.remove_orphan_files(table => 'default.history', older_than => '$now')")
    // The tag still reads through its snapshot's vectors, for both; then the table rolls back to it.
    assert(ours("SELECT * FROM paimon.default.history VERSION AS OF 'marked'") == marked)
    assert(java.atTag("default.history", "marked") == marked)
    sql("CALL paimon.sys.rollback(table => 'default.history', version => 'marked')")
    assert(ours("SELECT * FROM paimon.default.history") == marked && java.rows("default.history") == marked)
    assert(count("SELECT count(*) FROM paimon.default.`history$table_indexes`") == 1)
    // A damaged vector (one bit of its bitmap flipped: the checksum no longer holds) fails the read, naming its file.
    val range = spark.sql("SELECT file_name, inline(dv_ranges) FROM paimon.default.`history$table_indexes`").head()
    val index = warehouse.resolve("default.db/history/index").resolve(range.getString(0))
    val bytes = Files.readAllBytes(index)
    val damaged = bytes.clone()
    damaged(range.getInt(2) + 12) = (damaged(range.getInt(2) + 12) ^ 1).toByte
    Files.write(index, damaged)
    try {
      val e = intercept[Exception](sql("SELECT * FROM paimon.default.history"))
      val named = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst { case c: CorruptFileException => c }
      assert(named.exists(c => c.getMessage.contains(range.getString(0)) && c.getMessage.contains("checksum")), e)
    } finally Files.write(index, bytes)
  }

  test("64-bit vectors and the lookup changelog producer together; expiry keeps the index files still used") {
    walk("lookup64", ", 'changelog-producer' = 'lookup', 'deletion-vectors.bitmap64' = 'true'", deletes = true, upsert,
      bitmap64 = true)
    val changes = ours("SELECT * FROM paimon.default.lookup64 CHANGES FROM VERSION 1 TO VERSION 4")
    assert(changes.nonEmpty)
    // A stream reads the table's state as a batch read does (files above level 0, less their marked rows),
    // then the changelog of what comes after.
    val state = ours("SELECT * FROM paimon.default.lookup64")
    val query = spark.readStream.table("paimon.default.lookup64").writeStream.format("memory").queryName("dv_stream").start()
    try {
      query.processAllAvailable()
      assert(ours("SELECT * FROM dv_stream") == state)
      sql("INSERT INTO paimon.default.lookup64 VALUES (7777, 'late', 1)")
      query.processAllAvailable()
      assert(ours("SELECT * FROM dv_stream") == JavaPaimon.sorted(state :+ Seq(7777, "late", 1L)))
    } finally query.stop()
    sql("CALL paimon.sys.expire_snapshots(table => 'default.lookup64', retain_max => 1, retain_min => 1)")
    val index = warehouse.resolve("default.db").resolve("lookup64").resolve("index")
    val onDisk = Files.list(index).iterator().asScala.map(_.getFileName.toString).toSet
    val listed = ours("SELECT file_name FROM paimon.default.`lookup64$table_indexes`").map(_.head.toString).toSet
    assert(onDisk == listed, "index files of expired snapshots only are deleted")
    assert(java.rows("default.lookup64") == ours("SELECT * FROM paimon.default.lookup64"))
  }

  test("a table Java wrote with deletion vectors takes our writes: hidden at level 0 until compacted, for both") {
    val t = tables.dvPrimaryKey() // Java's table, left `write-only`: level-0 files wait for a compaction.
    val before = java.rows(t.name)
    sql(s"INSERT INTO paimon.${t.name} VALUES (1, 'ours-1'), (50, 'ours-50'), (300, 'ours-300')")
    sql(s"DELETE FROM paimon.${t.name} WHERE id = 2")
    assert(java.rows(t.name) == before && ours(s"SELECT * FROM paimon.${t.name}") == before)
    sql(s"CALL paimon.sys.compact(table => '${t.name}')")
    val after = (before.filterNot(r => Set(1, 2, 50)(r.head.asInstanceOf[Int])) ++
      Seq(Seq(1, "ours-1"), Seq(50, "ours-50"), Seq(300, "ours-300")) ++ (201 to 205).map(i => Seq(i, s"level0-$i")))
    assert(ours(s"SELECT * FROM paimon.${t.name}") == JavaPaimon.sorted(after))
    assert(java.rows(t.name) == JavaPaimon.sorted(after))
    // And Java's next compaction starts from our vectors.
    java.alter(t.name, org.apache.paimon.schema.SchemaChange.setOption("write-only", "false"))
    java.write(t.name, Seq(RowKind.INSERT -> Seq(3, "java-3"), RowKind.DELETE -> Seq(300, "ours-300")))
    val last = JavaPaimon.sorted(after.filterNot(r => Set(3, 300)(r.head.asInstanceOf[Int])) :+ Seq(3, "java-3"))
    assert(java.rows(t.name) == last && ours(s"SELECT * FROM paimon.${t.name}") == last)
  }

  test("append tables: DELETE, UPDATE and MERGE mark rows instead of rewriting files, in OVERWRITE commits; Java " +
    "reads every snapshot; compaction drops the marked rows and their vectors") {
    sql("CREATE TABLE paimon.default.events (id INT, name STRING, p INT) PARTITIONED BY (p) " +
      "TBLPROPERTIES ('deletion-vectors.enabled' = 'true', 'write-only' = 'true')")
    val model = mutable.Map.empty[Int, Seq[Any]]
    (0 until 6).foreach { c =>
      val ids = (c * 50 until c * 50 + 50)
      sql("INSERT INTO paimon.default.events VALUES " + ids.map(i => s"($i, 'n$i', ${i % 2})").mkString(", "))
      ids.foreach(i => model(i) = Seq(i, s"n$i", i % 2))
    }
    def files() = ours("SELECT file_path FROM paimon.default.`events$files`").map(_.head).toSet
    def check(what: String): Unit = {
      val expected = JavaPaimon.sorted(model.values.toSeq)
      assert(ours("SELECT * FROM paimon.default.events") == expected, what)
      assert(java.rows("default.events") == expected, s"$what: Java")
      assert(spark.sql("SELECT commit_kind FROM paimon.default.`events$snapshots` ORDER BY snapshot_id DESC LIMIT 1")
        .head().getString(0) == "OVERWRITE", what)
    }
    val before = files()
    sql("DELETE FROM paimon.default.events WHERE id % 5 = 0")
    model.keys.filter(_ % 5 == 0).foreach(model.remove)
    check("delete")
    assert(files() == before, "a DELETE with deletion vectors rewrites no file")
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", "false")
    try {
      sql("UPDATE paimon.default.events SET name = concat(name, '-u') WHERE id % 7 = 0")
      model.keys.filter(_ % 7 == 0).foreach(i => model(i) = Seq(i, s"n$i-u", i % 2))
    } finally spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
    check("update, row by row")
    assert(before.subsetOf(files()) && files().size > before.size, "an UPDATE adds its new rows' files only")
    sql("MERGE INTO paimon.default.events t USING (SELECT id, p FROM VALUES (1, 1), (2, 0), (3, 1), (999, 1) AS s(id, p)) s " +
      "ON t.id = s.id WHEN MATCHED AND t.id = 1 THEN DELETE WHEN MATCHED THEN UPDATE SET name = 'merged' " +
      "WHEN NOT MATCHED THEN INSERT (id, name, p) VALUES (s.id, 'new', s.p)")
    model.remove(1)
    Seq(2, 3).foreach(i => model(i) = Seq(i, "merged", i % 2))
    model(999) = Seq(999, "new", 1)
    check("merge")
    java.snapshotIds("default.events").foreach { id =>
      assert(ours(s"SELECT * FROM paimon.default.events VERSION AS OF $id") == java.atSnapshot("default.events", id),
        s"snapshot $id")
    }
    assert(count("SELECT count(*) FROM paimon.default.`events$table_indexes`") == 2, "one index file per partition")
    sql("ALTER TABLE paimon.default.events SET TBLPROPERTIES ('write-only' = 'false', 'compaction.min.file-num' = '2')")
    sql("CALL paimon.sys.compact(table => 'default.events')")
    assert(ours("SELECT * FROM paimon.default.events") == JavaPaimon.sorted(model.values.toSeq))
    assert(java.rows("default.events") == JavaPaimon.sorted(model.values.toSeq))
    assert(count("SELECT count(*) FROM paimon.default.`events$files`") == 2, "one file per partition")
    assert(count("SELECT count(*) FROM paimon.default.`events$table_indexes`") == 0, "vectors of rewritten files go")
  }

  test("an append table Java marked rows in takes our DELETE, and Java reads the vectors we merged into its own") {
    val t = tables.dvAppend()
    val name = s"paimon.${t.name}"
    val before = java.rows(t.name)
    sql(s"DELETE FROM $name WHERE id % 4 = 1")
    val expected = before.filterNot(_.head.asInstanceOf[Int] % 4 == 1)
    assert(java.rows(t.name) == expected && ours(s"SELECT * FROM $name") == expected)
    sql(s"INSERT INTO $name VALUES (5000, 'ours')")
    assert(java.rows(t.name) == JavaPaimon.sorted(expected :+ Seq(5000, "ours")))
  }

  // Found by DifferentialSuite (seeds 26 and 29): a bucket whose last vector Java's compaction removed keeps an
  // index file with no ranges, which our commits listed with no range list at all, so Java's next write failed.
  test("an empty deletion-vectors index file Java's compaction leaves is listed as Java lists it through our commits") {
    val schema = org.apache.paimon.schema.Schema.newBuilder().column("p", org.apache.paimon.types.DataTypes.INT().notNull())
      .column("id", org.apache.paimon.types.DataTypes.INT().notNull()).column("a", org.apache.paimon.types.DataTypes.STRING())
      .partitionKeys("p").primaryKey("p", "id").option("bucket", "1").option("deletion-vectors.enabled", "true").build()
    java.createTable("default.emptied", schema)
    java.insert("default.emptied", Seq(0, 1, "a"), Seq(0, 2, "b"))
    java.compact("default.emptied")
    java.insert("default.emptied", Seq(0, 1, "a2"))
    java.compact("default.emptied")
    def rangeLists = java.table("default.emptied").store().newIndexFileHandler()
      .scan(java.table("default.emptied").snapshotManager().latestSnapshot(), "DELETION_VECTORS").asScala
      .map(e => e.partition().getInt(0) -> Option(e.indexFile().dvRanges()).map(_.size()))
    assert(rangeLists == Seq(0 -> Some(0)), "Java's compaction leaves partition 0 an empty index file")
    java.insert("default.emptied", Seq(1, 1, "x"), Seq(1, 2, "z"))
    java.compact("default.emptied")
    java.insert("default.emptied", Seq(1, 1, "y"))
    assert(rangeLists.toMap == Map(0 -> Some(0), 1 -> Some(1)))
    // Our compaction of partition 1 writes the index manifest again, with partition 0's entry as it was.
    sql("CALL paimon.sys.compact(table => 'default.emptied')")
    assert(rangeLists.toMap.get(0).contains(Some(0)))
    java.insert("default.emptied", Seq(0, 2, "b2"))
    val expected = Seq(Seq(0, 1, "a2"), Seq(0, 2, "b2"), Seq(1, 1, "y"), Seq(1, 2, "z"))
    assert(java.rows("default.emptied") == expected && ours("SELECT * FROM paimon.default.emptied") == expected)
  }

  test("Paimon's rules: no switching without deletion-vectors.modifiable, nor with first-row or full-compaction") {
    sql("CREATE TABLE paimon.default.plain (id INT, a STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql("INSERT INTO paimon.default.plain VALUES (1, 'a'), (2, 'b')")
    sql("INSERT INTO paimon.default.plain VALUES (1, 'c')")
    val e = intercept[UnsupportedFeatureException](
      sql("ALTER TABLE paimon.default.plain SET TBLPROPERTIES ('deletion-vectors.enabled' = 'true')"))
    assert(e.value == "deletion-vectors.enabled" && e.getMessage.contains("deletion-vectors.modifiable"), e.getMessage)
    sql("ALTER TABLE paimon.default.plain SET TBLPROPERTIES ('deletion-vectors.modifiable' = 'true', " +
      "'deletion-vectors.enabled' = 'true')")
    sql("CALL paimon.sys.compact(table => 'default.plain', compact_strategy => 'full')")
    sql("INSERT INTO paimon.default.plain VALUES (2, 'd')")
    assert(ours("SELECT * FROM paimon.default.plain") == Seq(Seq(1, "c"), Seq(2, "d")))
    assert(java.rows("default.plain") == Seq(Seq(1, "c"), Seq(2, "d")))
    def refused(props: String): Exception = intercept[Exception](
      sql(s"CREATE TABLE paimon.default.bad (id INT, a STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true'$props)"))
    assert(refused(", 'primary-key' = 'id', 'merge-engine' = 'first-row'").isInstanceOf[InvalidOptionException])
    assert(refused(", 'primary-key' = 'id', 'changelog-producer' = 'full-compaction'").getMessage.contains("full-compaction"))
    assert(!Files.exists(warehouse.resolve("default.db").resolve("bad")))
  }
}
