package paimonspark.interop

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{DataTypes, RowKind}
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Changes both ways: Apache Paimon's Java core reads the changelog files our `input` producer
 * writes, through its `$audit_log` over `incremental-between`, with the same row kinds and rows as
 * ours; and we read the changelog Java's writer produces the same way.
 */
class ChangelogInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("changelog-interop")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ourChanges(t: String, range: String, mode: String = "auto"): Seq[Seq[Any]] = JavaPaimon.sorted(
    sql(s"SELECT * FROM paimon.default.`$t$$audit_log` WITH ('incremental-between' = '$range', " +
      s"'incremental-between-scan-mode' = '$mode')").map(_.toSeq))
  private def javaChanges(t: String, range: String, mode: String = "auto"): Seq[Seq[Any]] =
    java.rows(s"default.$t$$audit_log", "incremental-between" -> range, "incremental-between-scan-mode" -> mode)

  test("Java reads the changelog our input producer writes, row kinds included") {
    sql("CREATE TABLE paimon.default.ours (id INT, v STRING, op STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2', 'changelog-producer' = 'input', 'rowkind.field' = 'op')")
    sql("INSERT INTO paimon.default.ours VALUES (1, 'a', '+I', 'd1'), (2, 'b', '+I', 'd1'), (3, 'c', '+I', 'd2')")
    sql("INSERT INTO paimon.default.ours VALUES (1, 'a', '-U', 'd1'), (1, 'a2', '+U', 'd1'), (3, 'c', '-D', 'd2'), " +
      "(4, 'd', '+I', 'd2'), (4, 'd2', '+I', 'd2')")
    sql("CALL paimon.sys.compact(table => 'default.ours')")
    sql("INSERT INTO paimon.default.ours VALUES (2, 'b2', '+I', 'd1')")
    val expected = Seq(
      Seq("+I", 1, "a", "+I", "d1"), Seq("+I", 2, "b", "+I", "d1"), Seq("+I", 3, "c", "+I", "d2"),
      Seq("-U", 1, "a", "-U", "d1"), Seq("+U", 1, "a2", "+U", "d1"), Seq("-D", 3, "c", "-D", "d2"),
      Seq("+I", 4, "d", "+I", "d2"), Seq("+I", 4, "d2", "+I", "d2"), Seq("+I", 2, "b2", "+I", "d1"))
    assert(ourChanges("ours", "0,4") == JavaPaimon.sorted(expected))
    Seq("0,4", "1,2", "2,4", "1,4").foreach { range =>
      assert(javaChanges("ours", range) == ourChanges("ours", range), s"changes $range")
      assert(javaChanges("ours", range, "delta") == ourChanges("ours", range, "delta"), s"delta changes $range")
    }
    // The compaction carries no changes: its snapshot has no changelog list in either reading.
    assert(ourChanges("ours", "2,3").isEmpty && javaChanges("ours", "2,3").isEmpty)
  }

  test("we read the changelog Java's writer produces with the input producer") {
    val schema = Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").option("changelog-producer", "input").build()
    java.createTable("default.javas", schema)
    java.insert("default.javas", Seq(1, "a"), Seq(2, "b"))
    java.write("default.javas", Seq(RowKind.UPDATE_BEFORE -> Seq(1, "a"), RowKind.UPDATE_AFTER -> Seq(1, "a2"),
      RowKind.DELETE -> Seq(2, "b"), RowKind.INSERT -> Seq(3, "c")))
    java.insert("default.javas", Seq(3, "c2"))
    Seq("0,3", "1,3", "2,3", "0,1").foreach { range =>
      assert(ourChanges("javas", range) == javaChanges("javas", range), s"changes $range")
    }
    assert(ourChanges("javas", "1,2") == JavaPaimon.sorted(Seq(
      Seq("-U", 1, "a"), Seq("+U", 1, "a2"), Seq("-D", 2, "b"), Seq("+I", 3, "c"))))
    // Spark's changelog API over Java's changelog: kinds become Spark's change types.
    val spark4 = sql("SELECT id, v, _change_type, _commit_version FROM paimon.default.javas " +
      "CHANGES FROM VERSION 2 TO VERSION 3").map(_.toSeq)
    assert(JavaPaimon.sorted(spark4) == JavaPaimon.sorted(Seq(Seq(1, "a", "update_preimage", 2L),
      Seq(1, "a2", "update_postimage", 2L), Seq(2, "b", "delete", 2L), Seq(3, "c", "insert", 2L),
      Seq(3, "c2", "insert", 3L))))
  }

  /** Where ranges up to `latest` start: the first commit, one in the middle (an append or a compaction) and the last. */
  private def starts(latest: Long): Seq[Long] = Seq(0L, latest / 2, latest - 1).distinct

  test("lookup producer: Java reads our exact changelog, we read Java's, for each merge engine") {
    Seq("deduplicate" -> "", "partial-update" -> "", "aggregation" -> ", 'fields.v.aggregate-function' = 'sum'",
      "first-row" -> "").foreach { case (engine, extra) =>
      val t = s"ours_lookup_${engine.replace('-', '_')}"
      sql(s"CREATE TABLE paimon.default.$t (id INT, v INT, w STRING) TBLPROPERTIES ('primary-key' = 'id', " +
        s"'bucket' = '2', 'changelog-producer' = 'lookup', 'merge-engine' = '$engine'$extra)")
      sql(s"INSERT INTO paimon.default.$t VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c')")
      sql(s"INSERT INTO paimon.default.$t VALUES (1, 10, NULL), (4, 4, 'd')")
      sql(s"INSERT INTO paimon.default.$t VALUES (2, 20, 'b2'), (4, 40, NULL)")
      val latest = sql(s"SELECT max(snapshot_id) FROM paimon.default.`$t$$snapshots`").head.getLong(0)
      assert(ourChanges(t, s"0,$latest").exists(_.head == "-U") == (engine != "first-row"), engine)
      starts(latest).foreach { start =>
        assert(javaChanges(t, s"$start,$latest") == ourChanges(t, s"$start,$latest"), s"$engine changes $start,$latest")
      }
    }
    val schema = Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").option("changelog-producer", "lookup").build()
    java.createTable("default.javas_lookup", schema)
    java.insert("default.javas_lookup", Seq(1, "a"), Seq(2, "b"))
    java.write("default.javas_lookup", Seq(RowKind.INSERT -> Seq(1, "a2"), RowKind.DELETE -> Seq(2, "b"),
      RowKind.DELETE -> Seq(9, "never"), RowKind.INSERT -> Seq(3, "c")))
    val latest = java.latestId("default.javas_lookup").get
    assert(ourChanges("javas_lookup", s"0,$latest") == javaChanges("javas_lookup", s"0,$latest"))
    assert(ourChanges("javas_lookup", s"0,$latest") == JavaPaimon.sorted(Seq(Seq("+I", 1, "a"), Seq("+I", 2, "b"),
      Seq("-U", 1, "a"), Seq("+U", 1, "a2"), Seq("-D", 2, "b"), Seq("+I", 3, "c"))))
  }

  test("lookup-compact = gentle: level-0 runs wait for the interval, then one changelog covers them, as Java reads it") {
    sql("CREATE TABLE paimon.default.gentle (id INT, v INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
      "'changelog-producer' = 'lookup', 'lookup-compact' = 'gentle', 'lookup-compact.max-interval' = '5')")
    def latest = sql("SELECT max(snapshot_id) FROM paimon.default.`gentle$snapshots`").head.getLong(0)
    def level0 = sql("SELECT count(*) FROM paimon.default.`gentle$files` WHERE level = 0").head.getLong(0)
    (1 to 4).foreach(i => sql(s"INSERT INTO paimon.default.gentle VALUES (1, $i), (${i + 1}, $i)"))
    // RADICAL would have forced each write's level-0 file up, with a changelog per write.
    assert(level0 == 4 && ourChanges("gentle", s"0,$latest").isEmpty)
    sql("INSERT INTO paimon.default.gentle VALUES (1, 5), (6, 5)")
    assert(level0 == 0)
    val all = ourChanges("gentle", s"0,$latest")
    assert(all == JavaPaimon.sorted((1 to 6).map(k => Seq("+I", k, if (k == 1) 5 else k - 1))), all)
    assert(javaChanges("gentle", s"0,$latest") == all)
  }

  test("full-compaction producer: Java reads the changelog of our full compactions, we read Java's") {
    sql("CREATE TABLE paimon.default.ours_full (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '2', 'changelog-producer' = 'full-compaction')")
    sql("INSERT INTO paimon.default.ours_full VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    sql("INSERT INTO paimon.default.ours_full VALUES (1, 'a2'), (4, 'd')")
    sql("INSERT INTO paimon.default.ours_full VALUES (1, 'a3'), (2, 'b2')")
    val latest = sql("SELECT max(snapshot_id) FROM paimon.default.`ours_full$snapshots`").head.getLong(0)
    assert(ourChanges("ours_full", s"0,$latest").count(_.head == "-U") == 3)
    starts(latest).foreach { start =>
      assert(javaChanges("ours_full", s"$start,$latest") == ourChanges("ours_full", s"$start,$latest"), s"$start,$latest")
    }
    val schema = Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").option("changelog-producer", "full-compaction").build()
    java.createTable("default.javas_full", schema)
    java.insert("default.javas_full", Seq(1, "a"), Seq(2, "b"))
    java.compact("default.javas_full")
    java.write("default.javas_full", Seq(RowKind.INSERT -> Seq(1, "a2"), RowKind.DELETE -> Seq(2, "b")))
    java.compact("default.javas_full")
    val javaLatest = java.latestId("default.javas_full").get
    assert(ourChanges("javas_full", s"0,$javaLatest") == javaChanges("javas_full", s"0,$javaLatest"))
    assert(ourChanges("javas_full", s"0,$javaLatest") == JavaPaimon.sorted(Seq(Seq("+I", 1, "a"), Seq("+I", 2, "b"),
      Seq("-U", 1, "a"), Seq("+U", 1, "a2"), Seq("-D", 2, "b"))))
  }

  test("diff reads between two tags or in diff mode give Java's rows and deletions") {
    sql("CREATE TABLE paimon.default.ours_diff (id INT, v STRING, op STRING) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '2', 'rowkind.field' = 'op')")
    sql("INSERT INTO paimon.default.ours_diff VALUES (1, 'a', '+I'), (2, 'b', '+I'), (3, 'c', '+I'), (6, 'f', '+I')")
    sql("CALL paimon.sys.create_tag(table => 'default.ours_diff', tag => 'first', snapshot => 1)")
    sql("INSERT INTO paimon.default.ours_diff VALUES (1, 'a2', '+I'), (3, 'c', '-D'), (4, 'd', '+I')")
    sql("CALL paimon.sys.compact(table => 'default.ours_diff')")
    sql("INSERT INTO paimon.default.ours_diff VALUES (2, 'b2', '+I'), (5, 'e', '+I'), (4, 'd', '-D')")
    sql("CALL paimon.sys.create_tag(table => 'default.ours_diff', tag => 'last', snapshot => 4)")
    def ours(options: String) = JavaPaimon.sorted(sql(s"SELECT id, v FROM paimon.default.ours_diff WITH ($options)")
      .map(_.toSeq))
    def deleted(rows: Seq[Seq[Any]]) = JavaPaimon.sorted(rows.filter(_.head == "-D").map(_.slice(1, 3)))
    val expected = JavaPaimon.sorted(Seq(Seq(1, "a2"), Seq(2, "b2"), Seq(5, "e")))
    assert(ours("'incremental-between' = 'first,last'") == expected)
    assert(java.rows("default.ours_diff", "incremental-between" -> "first,last").map(_.take(2)) == expected)
    assert(ours("'incremental-between' = '1,4', 'incremental-between-scan-mode' = 'diff'") == expected)
    assert(java.rows("default.ours_diff", "incremental-between" -> "1,4", "incremental-between-scan-mode" -> "diff")
      .map(_.take(2)) == expected)
    // Removed keys: -D with the earlier row. Java merges only the files that differ, so key 4, added and
    // deleted within the range, shows as a deletion of a key the earlier state never had; we compare states.
    assert(deleted(ourChanges("ours_diff", "1,4", "diff")) == Seq(Seq(3, "c")))
    assert(deleted(javaChanges("ours_diff", "1,4", "diff")) == Seq(Seq(3, "c"), Seq(4, "d")))
  }

  test("decoupled changelog lifecycle: the files Java's expiries leave, and Java reads our long-lived changelogs") {
    Seq("input", "none").foreach { producer =>
      val t = s"ours_life_$producer"
      sql(s"CREATE TABLE paimon.default.$t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
        s"'changelog-producer' = '$producer', 'write-only' = 'true', 'snapshot.num-retained.min' = '1', " +
        "'snapshot.num-retained.max' = '2', 'changelog.num-retained.min' = '1', 'changelog.num-retained.max' = '4')")
      (1 to 5).foreach(i => sql(s"INSERT INTO paimon.default.$t VALUES ($i, 'v$i'), (${i + 1}, 'w$i')"))
      sql(s"CALL paimon.sys.compact(table => 'default.$t')")
      sql(s"INSERT INTO paimon.default.$t VALUES (9, 'last')")
      val before = (1 to 7).map(id => id -> ourChanges(t, s"${id - 1},$id")).toMap
      val javas = java.twin(s"default.$t", "java")
      // Snapshots past the newest two go; their changes stay as changelog/changelog-N, in both engines.
      val deleted = sql(s"CALL paimon.sys.expire_snapshots(table => 'default.$t', retain_max => 2)").head.getInt(0)
      assert(deleted == 5 && java.expire(javas, retainMax = 2, retainMin = 1, changelogRetainMax = Some(4)) == 5)
      assertSameLayout(s"default.$t", javas)
      val longLived = java.table(s"default.$t").changelogManager()
      assert((longLived.earliestLongLivedChangelogId().longValue, longLived.latestLongLivedChangelogId().longValue) == (1L, 5L))
      assert(longLived.longLivedChangelog(3).id() == 3L)
      // Their changes read as before, from the changelogs.
      (1 to 7).foreach(id => assert(ourChanges(t, s"${id - 1},$id") == before(id), s"$producer changes of $id"))
      // Changelogs past the newest four snapshots' worth go next, with what only they named.
      val gone = sql(s"CALL paimon.sys.expire_changelogs(table => 'default.$t', retain_max => 4)").head.getInt(0)
      assert(gone == 3 && java.expireChangelogs(javas, retainMax = 4, retainMin = 1) == 3)
      assertSameLayout(s"default.$t", javas)
      assert(java.rows(s"default.$t") == JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.$t").map(_.toSeq)))
      (4 to 7).foreach(id => assert(ourChanges(t, s"${id - 1},$id") == before(id), s"$producer changes of $id"))
    }
  }

  // Found by DifferentialSuite (seed 10): our streams skipped the changelog of every OVERWRITE snapshot, which
  // Paimon's streams read; a batch range skips it in both.
  test("a stream reads the changelog an overwrite wrote, as Java's streams do; a batch range skips it in both") {
    sql("CREATE TABLE paimon.default.ours_overwritten (id INT, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '1', 'changelog-producer' = 'input', 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')")
    sql("INSERT INTO paimon.default.ours_overwritten VALUES (1, 1), (2, 2)")
    sql("INSERT INTO paimon.default.ours_overwritten VALUES (1, 10), (3, 3)")
    sql("CALL paimon.sys.compact(table => 'default.ours_overwritten')")
    // Aggregation takes no -D rows: the DELETE rewrites the kept rows in an OVERWRITE, their changelog input.
    sql("DELETE FROM paimon.default.ours_overwritten WHERE id = 2")
    val latest = java.latestId("default.ours_overwritten").get
    assert(sql(s"SELECT commit_kind FROM paimon.default.`ours_overwritten$$snapshots` WHERE snapshot_id = $latest")
      .head.getString(0) == "OVERWRITE")
    val stream = spark.readStream.option("scan.snapshot-id", "1").table("paimon.default.`ours_overwritten$audit_log`")
      .writeStream.format("memory").queryName("overwritten").trigger(Trigger.AvailableNow()).start()
    stream.awaitTermination()
    val streamed = JavaPaimon.sorted(sql("SELECT * FROM overwritten").map(_.toSeq))
    assert(streamed == java.streamedChanges("default.ours_overwritten"))
    assert(streamed == JavaPaimon.sorted(Seq(Seq("+I", 1, 1L), Seq("+I", 2, 2L), Seq("+I", 1, 10L), Seq("+I", 3, 3L),
      Seq("+I", 1, 11L), Seq("+I", 3, 3L))))
    assert(ourChanges("ours_overwritten", s"0,$latest") == javaChanges("ours_overwritten", s"0,$latest"))
    assert(ourChanges("ours_overwritten", s"${latest - 1},$latest").isEmpty)
  }

  private def assertSameLayout(ours: String, javas: String): Unit = {
    val (a, b) = (java.layout(ours), java.layout(javas))
    assert(a == b, s"only ours: ${(a.toSet -- b.toSet).toSeq.sorted}; only Java's: ${(b.toSet -- a.toSet).toSeq.sorted}")
  }
}
