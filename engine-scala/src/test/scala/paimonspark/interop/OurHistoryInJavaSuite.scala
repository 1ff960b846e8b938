package paimonspark.interop

import java.time.{Duration, LocalDateTime}

import scala.jdk.CollectionConverters._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Table history written by our engine, read by Apache Paimon's Java core: every retained snapshot
 * and every tag, after our expiry (tags whose snapshots expired included), after our rollbacks, and
 * on branches. Java's rows are the reference: a difference is a bug in our files.
 */
class OurHistoryInJavaSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("history-in-java")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private val kinds = Seq(
    "append" -> "",
    "primary-key" -> "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2')")

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).map(_.toSeq))
  private def ourVersion(t: String, version: String) = ours(s"SELECT * FROM paimon.default.$t VERSION AS OF $version")
  private def ourSnapshotIds(t: String): Seq[Long] =
    sql(s"SELECT snapshot_id FROM paimon.default.`$t$$snapshots`").map(_.getLong(0)).sorted
  private def ourTags(t: String): Map[String, (Long, String)] =
    sql(s"SELECT tag_name, snapshot_id, time_retained FROM paimon.default.`$t$$tags`")
      .map(r => r.getString(0) -> (r.getLong(1), r.getString(2))).toMap

  /**
   * Five commits (inserts, an upsert, a partition overwrite, a compaction, more inserts) and four
   * tags, one with a time to live. Returns our rows of every version: snapshot ids and quoted tags.
   */
  private def writeHistory(t: String, props: String): Map[String, Seq[Seq[Any]]] = {
    sql(s"CREATE TABLE paimon.default.$t (id INT, v STRING, dt STRING) PARTITIONED BY (dt) $props")
    sql(s"INSERT INTO paimon.default.$t VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
    sql(s"INSERT INTO paimon.default.$t VALUES (1, 'a2', 'd1'), (4, 'd', 'd2')")
    sql(s"CALL paimon.sys.create_tag(table => 'default.$t', tag => 'two')")
    sql(s"INSERT OVERWRITE paimon.default.$t PARTITION (dt = 'd2') VALUES (5, 'e')")
    sql(s"CALL paimon.sys.compact(table => 'default.$t')")
    sql(s"INSERT INTO paimon.default.$t VALUES (2, 'b2', 'd1'), (6, 'f', 'd2')")
    sql(s"CALL paimon.sys.create_tag(table => 'default.$t', tag => 'first', snapshot => 1)")
    sql(s"CALL paimon.sys.create_tag(table => 'default.$t', tag => 'kept', snapshot => 3, time_retained => '1 d')")
    sql(s"CALL paimon.sys.create_tag(table => 'default.$t', tag => 'last')")
    val ids = ourSnapshotIds(t)
    assert(ids.head == 1 && ids.size >= 4, s"snapshots $ids")
    (ids.map(_.toString) ++ ourTags(t).keys.map(n => s"'$n'")).map(v => v -> ourVersion(t, v)).toMap
  }

  /** The same files and hints in our table and in the twin Java worked on, with the differences spelled out. */
  private def assertSameLayout(ours: String, javas: String): Unit = {
    val (a, b) = (java.layout(ours), java.layout(javas))
    assert(a == b,
      s"only ours: ${(a.toSet -- b.toSet).toSeq.sorted}; only Java's: ${(b.toSet -- a.toSet).toSeq.sorted}")
  }

  /**
   * The same snapshots, tags, schemas and hints, of every branch. After a rollback Paimon leaves the
   * data and manifest files of what it removed to orphan cleanup while ours deletes them
   * (docs/history.md), so there ours need only be a subset; reading every version afterwards shows
   * that nothing still needed went.
   */
  private def assertSameHistoryLayout(ours: String, javas: String, except: Set[String] = Set.empty): Unit = {
    def history(l: Map[String, String]) = l.filter { case (p, _) =>
      Seq("snapshot/", "tag/", "schema/", "branch/").exists(p.startsWith) && !except(p)
    }
    val (a, b) = (java.layout(ours), java.layout(javas))
    assert(history(a) == history(b), s"only ours: ${(history(a).toSet -- history(b).toSet).toSeq.sorted}; " +
      s"only Java's: ${(history(b).toSet -- history(a).toSet).toSeq.sorted}")
    assert((a.keySet -- except).subsetOf(b.keySet),
      s"files we kept that Java deleted: ${(a.keySet -- except -- b.keySet).toSeq.sorted}")
  }

  private def assertJavaReadsHistory(t: String, versions: Map[String, Seq[Seq[Any]]]): Unit = {
    val (name, ids, tags) = (s"default.$t", ourSnapshotIds(t), ourTags(t))
    assert(java.snapshotIds(name) == ids)
    assert(java.earliestId(name) == ids.headOption && java.latestId(name) == ids.lastOption)
    assert(java.tags(name) == tags)
    ids.foreach(id => assert(java.atSnapshot(name, id) == versions(id.toString), s"snapshot $id of $t"))
    tags.keys.foreach(tag => assert(java.atTag(name, tag) == versions(s"'$tag'"), s"tag $tag of $t"))
    assert(java.rows(name) == versions(ids.last.toString))
  }

  kinds.foreach { case (kind, props) =>
    val t = s"hist_${kind.replace('-', '_')}"

    test(s"$kind table: Java reads every snapshot and tag we wrote, and our $$snapshots and $$tags; " +
      "its expiry and rollback keep what we read") {
      val versions = writeHistory(t, props)
      assert(versions("1") == Seq(Seq(1, "a", "d1"), Seq(2, "b", "d1"), Seq(3, "c", "d2")))
      val latest =
        if (kind == "append") Seq(Seq(1, "a", "d1"), Seq(1, "a2", "d1"), Seq(2, "b", "d1"), Seq(2, "b2", "d1"))
        else Seq(Seq(1, "a2", "d1"), Seq(2, "b2", "d1"))
      assert(versions("'last'") == JavaPaimon.sorted(latest ++ Seq(Seq(5, "e", "d2"), Seq(6, "f", "d2"))))
      assert(ourTags(t)("kept") == (3L, "PT24H") && ourTags(t)("two") == (2L, null))
      assertJavaReadsHistory(t, versions)
      // By time: at a commit's millisecond, and one before it.
      val millis = java.table(s"default.$t").snapshotManager().snapshot(3).timeMillis()
      Seq(millis -> "3", millis - 1 -> "2").foreach { case (ms, id) =>
        assert(java.rows(s"default.$t", "scan.timestamp-millis" -> ms.toString) == versions(id))
        assert(ours(s"SELECT * FROM paimon.default.$t TIMESTAMP AS OF timestamp_millis($ms)") == versions(id))
      }
      // Java's own system tables over our files, column by column.
      assert(java.rows(s"default.$t$$snapshots") == ours(s"SELECT * FROM paimon.default.`$t$$snapshots`"))
      assert(java.rows(s"default.$t$$tags") == ours(s"SELECT * FROM paimon.default.`$t$$tags`"))

      // Java's expiry and rollback on our files: it decides what to delete from our manifests.
      val ids = ourSnapshotIds(t)
      assert(java.expire(s"default.$t", retainMax = 2, retainMin = 1) == ids.size - 2)
      assert(ourSnapshotIds(t) == ids.takeRight(2))
      ids.takeRight(2).foreach(id => assert(ourVersion(t, id.toString) == versions(id.toString), s"snapshot $id"))
      ourTags(t).keys.foreach(tag => assert(ourVersion(t, s"'$tag'") == versions(s"'$tag'"), s"tag $tag"))
      java.table(s"default.$t").rollbackTo("two")
      assert(ourSnapshotIds(t) == Seq(2L) && ourTags(t).keySet == Set("first", "two"))
      assert(ours(s"SELECT * FROM paimon.default.$t") == versions("2"))
      sql(s"INSERT INTO paimon.default.$t VALUES (9, 'i', 'd2')")
      assert(java.rows(s"default.$t") == JavaPaimon.sorted(versions("2") :+ Seq(9, "i", "d2")))
    }

    test(s"$kind table: Java reads what our expiry keeps, including expired tagged snapshots, and our rollbacks") {
      val e = s"${t}_exp"
      val versions = writeHistory(e, props)
      val latest = ourSnapshotIds(e).last
      // A second before the last-but-one commit: the count decides, and retain_max keeps two.
      // (As in Paimon, a snapshot older than older_than goes even within retain_max, down to retain_min.)
      val olderThan = sql(s"SELECT date_format(commit_time - INTERVAL 1 SECOND, 'yyyy-MM-dd HH:mm:ss') " +
        s"FROM paimon.default.`$e$$snapshots` WHERE snapshot_id = ${latest - 1}").head.getString(0)
      val javaExpired = java.twin(s"default.$e", "java_expired")
      val deleted = sql(s"CALL paimon.sys.expire_snapshots(table => 'default.$e', retain_max => 2, retain_min => 1, " +
        s"older_than => '$olderThan')").head.getInt(0)
      assert(deleted == latest - 2 && ourSnapshotIds(e) == Seq(latest - 1, latest))
      // Java's expiry with the same bounds on a copy deletes exactly the files we deleted.
      val retained = Duration.between(LocalDateTime.parse(olderThan.replace(' ', 'T')), LocalDateTime.now())
      assert(java.expire(javaExpired, retainMax = 2, retainMin = 1, retained) == deleted)
      assertSameLayout(s"default.$e", javaExpired)
      assert(java.earliestId(s"default.$e") == Some(latest - 1))
      assert(ourTags(e).keySet == Set("first", "two", "kept", "last"))
      assertJavaReadsHistory(e, versions)

      // Back to a retained snapshot: later snapshots and tags go, Java reads the state we read.
      val javaRolledBack = java.twin(s"default.$e", "java_rolled_back")
      java.table(javaRolledBack).rollbackTo(latest - 1)
      val back = sql(s"CALL paimon.sys.rollback(table => 'default.$e', version => '${latest - 1}')").head
      assert((back.getLong(0), back.getLong(1)) == (latest, latest - 1))
      assert(ourTags(e).keySet == Set("first", "two", "kept"))
      assertSameHistoryLayout(s"default.$e", javaRolledBack)
      assertJavaReadsHistory(e, versions)
      assert(java.rows(s"default.$e") == versions((latest - 1).toString))
      sql(s"INSERT INTO paimon.default.$e VALUES (7, 'g', 'd1')")
      assert(java.latestId(s"default.$e") == Some(latest))
      assert(java.rows(s"default.$e") == JavaPaimon.sorted(versions((latest - 1).toString) :+ Seq(7, "g", "d1")))
      assert(java.rows(s"default.$e") == ours(s"SELECT * FROM paimon.default.$e"))

      // Back to a tag whose snapshot expired: its snapshot file comes back for Java too.
      val javaToTag = java.twin(s"default.$e", "java_to_tag")
      java.table(javaToTag).rollbackTo("first")
      sql(s"CALL paimon.sys.rollback(table => 'default.$e', version => 'first')")
      assertSameHistoryLayout(s"default.$e", javaToTag)
      assert(java.snapshotIds(s"default.$e") == Seq(1L) && java.earliestId(s"default.$e") == Some(1L))
      assert(java.tags(s"default.$e").keySet == Set("first"))
      assert(java.rows(s"default.$e") == versions("1"))
      sql(s"INSERT INTO paimon.default.$e VALUES (8, 'h', 'd2')")
      assert(java.snapshotIds(s"default.$e") == Seq(1L, 2L))
      assert(java.rows(s"default.$e") == JavaPaimon.sorted(versions("1") :+ Seq(8, "h", "d2")))
      assert(java.rows(s"default.$e") == ours(s"SELECT * FROM paimon.default.$e"))
    }
  }

  test("a table whose manifests we compacted fully reads the same in Java at every snapshot") {
    // A one-byte threshold: every commit from the overwrite on compacts its manifests fully.
    val t = "hist_full_manifests"
    val versions = writeHistory(t, "TBLPROPERTIES ('manifest.full-compaction-threshold-size' = '1 b')")
    val table = java.table(s"default.$t")
    val lists = table.store().manifestListFactory().create()
    def deletes(list: String) = lists.read(list, null).asScala.map(_.numDeletedFiles).sum
    val snapshots = ourSnapshotIds(t).map(table.snapshotManager().snapshot(_))
    assert(snapshots.exists(s => deletes(s.deltaManifestList) > 0), "no commit removed a file")
    assert(deletes(snapshots.last.baseManifestList) == 0)
    assertJavaReadsHistory(t, versions)
  }

  test("a branch we create from a tag and write to, then fast-forward, reads the same in Java") {
    sql("CREATE TABLE paimon.default.br (id INT, v STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2')")
    sql("INSERT INTO paimon.default.br VALUES (1, 'a', 'd1'), (2, 'b', 'd2')")
    sql("CALL paimon.sys.create_tag(table => 'default.br', tag => 't1')")
    sql("INSERT INTO paimon.default.br VALUES (1, 'main', 'd1'), (3, 'c', 'd1')")
    val javaBranched = java.twin("default.br", "java_branched")
    java.table(javaBranched).createBranch("b1", "t1")
    sql("CALL paimon.sys.create_branch(table => 'default.br', branch => 'b1', tag => 't1')")
    // Our new branch has a LATEST hint (naming its snapshot), Java's none: either way readers list the snapshots.
    assertSameHistoryLayout("default.br", javaBranched, except = Set("branch/branch-b1/snapshot/LATEST"))
    sql("INSERT INTO paimon.default.`br$branch_b1` VALUES (2, 'branch', 'd2'), (4, 'd', 'd2')")
    sql("INSERT INTO paimon.default.`br$branch_b1` VALUES (5, 'e', 'd1')")

    val branchRows = ours("SELECT * FROM paimon.default.`br$branch_b1`")
    assert(branchRows == Seq(Seq(1, "a", "d1"), Seq(2, "branch", "d2"), Seq(4, "d", "d2"), Seq(5, "e", "d1")))
    assert(java.rows("default.br$branch_b1") == branchRows)
    assert(java.rows("default.br") == ours("SELECT * FROM paimon.default.br"))
    assert(java.snapshotIds("default.br$branch_b1") == Seq(1L, 2L, 3L))
    assert(java.atSnapshot("default.br$branch_b1", 1) == ourVersion("br", "'t1'"))
    assert(java.tags("default.br$branch_b1").keySet == Set("t1"))
    assert(java.table("default.br").branchManager().branches().contains("b1"))

    val javaForwarded = java.twin("default.br", "java_forwarded")
    java.table(javaForwarded).fastForward("b1")
    sql("CALL paimon.sys.fast_forward(table => 'default.br', branch => 'b1')")
    assertSameHistoryLayout("default.br", javaForwarded)
    assert(java.snapshotIds("default.br") == Seq(1L, 2L, 3L))
    assert(java.rows("default.br") == branchRows)
    sql("INSERT INTO paimon.default.br VALUES (6, 'f', 'd2')")
    assert(java.rows("default.br") == JavaPaimon.sorted(branchRows :+ Seq(6, "f", "d2")))
    assert(java.rows("default.br") == ours("SELECT * FROM paimon.default.br"))
  }
}
