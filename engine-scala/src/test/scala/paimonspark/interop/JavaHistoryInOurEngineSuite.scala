package paimonspark.interop

import java.time.{Duration, LocalDateTime}
import java.time.format.DateTimeFormatter

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{DataTypes, RowKind}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Table history written by Apache Paimon's Java core (commits, tags with and without a time to
 * live, a rollback, its own expiry), read by our engine: every retained snapshot and tag, and the
 * `$snapshots` and `$tags` system tables. Then our expiry on Java's table, after which Java still
 * reads every snapshot and tag that is left.
 */
class JavaHistoryInOurEngineSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("java-history")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).map(_.toSeq))
  private def ourVersion(t: String, version: String) = ours(s"SELECT * FROM paimon.default.$t VERSION AS OF $version")
  private def ourSnapshotIds(t: String): Seq[Long] =
    sql(s"SELECT snapshot_id FROM paimon.default.`$t$$snapshots`").map(_.getLong(0)).sorted

  private def schema(primaryKey: Boolean): Schema = {
    val b = Schema.newBuilder().column("dt", DataTypes.STRING()).column("id", DataTypes.INT())
      .column("v", DataTypes.STRING()).partitionKeys("dt")
    // Fixed buckets for both: Java's batch writer compacts an append table only when it has them.
    if (primaryKey) b.primaryKey("dt", "id").option("bucket", "2")
    else b.option("bucket", "2").option("bucket-key", "id")
    b.build()
  }

  private def ins(values: Any*) = RowKind.INSERT -> values.toSeq

  /** Java's commits: five, then the fifth rolled back and replaced by a sixth (and a compaction). */
  private def commits(primaryKey: Boolean): Seq[Seq[(RowKind, Seq[Any])]] = Seq(
    Seq(ins("d1", 1, "a"), ins("d1", 2, "b"), ins("d2", 3, "c")),
    Seq(if (primaryKey) RowKind.UPDATE_AFTER -> Seq("d1", 1, "a2") else ins("d1", 1, "a2"), ins("d2", 4, "d")),
    (if (primaryKey) Seq(RowKind.DELETE -> Seq("d1", 2, "b")) else Nil) :+ ins("d1", 5, "e"),
    Seq(ins("d2", 3, "c4")),
    Seq(ins("d1", 6, "rolled back")),
    Seq(ins("d2", 7, "g")))

  Seq("append" -> false, "primary-key" -> true).foreach { case (kind, primaryKey) =>
    val t = s"java_${kind.replace('-', '_')}"
    val name = s"default.$t"

    test(s"$kind table: we read every snapshot and tag of Java's history, after its rollback and expiry") {
      java.createTable(name, schema(primaryKey))
      val writes = commits(primaryKey)
      writes.take(5).foreach(java.write(name, _))
      // Java's own rows of every snapshot, before anything expires.
      val byId = (1L to 5L).map(id => id -> java.atSnapshot(name, id)).toMap
      assert(byId(1) == Seq(Seq("d1", 1, "a"), Seq("d1", 2, "b"), Seq("d2", 3, "c")))
      java.table(name).createTag("j1", 1)
      java.table(name).createTag("j2", 2, Duration.ofDays(1))
      java.table(name).createTag("j4", 4)
      java.table(name).createTag("j5", 5)
      java.table(name).rollbackTo(4)
      java.write(name, writes(5))
      // A full compaction: snapshot 6 removes files that only the tags hold once 5 expires too.
      java.compact(name)
      assert(java.table(name).snapshotManager().latestSnapshot().commitKind().toString == "COMPACT")
      assert(java.expire(name, retainMax = 2, retainMin = 1) == 4)
      assert(java.snapshotIds(name) == Seq(5L, 6L) && java.tags(name).keySet == Set("j1", "j2", "j4"))

      val latest = JavaPaimon.sorted(byId(4) :+ Seq("d2", 7, "g"))
      val expected = Map("5" -> latest, "6" -> latest, "'j1'" -> byId(1), "'j2'" -> byId(2), "'j4'" -> byId(4))
      assert(java.atSnapshot(name, 5) == latest && java.atSnapshot(name, 6) == latest)
      expected.foreach { case (version, rows) => assert(ourVersion(t, version) == rows, s"version $version") }
      assert(ours(s"SELECT * FROM paimon.default.$t") == latest)
      assert(ourSnapshotIds(t) == Seq(5L, 6L))
      assert(ours(s"SELECT * FROM paimon.default.`$t$$snapshots`") == java.rows(s"$name$$snapshots"))
      assert(ours(s"SELECT * FROM paimon.default.`$t$$tags`") == java.rows(s"$name$$tags"))
      assert(sql(s"SELECT time_retained FROM paimon.default.`$t$$tags` WHERE tag_name = 'j2'").head.getString(0)
        == "PT24H")

      // Our expiry on Java's table: Java still reads everything left, and we agree on the earliest.
      val javaExpired = java.twin(name, "java_expired")
      val now = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
      val deleted = sql(s"CALL paimon.sys.expire_snapshots(table => '$name', retain_max => 1, retain_min => 1, " +
        s"older_than => '$now')").head.getInt(0)
      assert(deleted == 1 && ourSnapshotIds(t) == Seq(6L))
      // Java's own expiry with the same bounds on a copy deletes exactly the files we deleted.
      assert(java.expire(javaExpired, retainMax = 1, retainMin = 1) == 1)
      assert(java.layout(name) == java.layout(javaExpired))
      assert(java.snapshotIds(name) == Seq(6L) && java.earliestId(name) == Some(6L))
      assert(java.atSnapshot(name, 6) == latest && java.rows(name) == latest)
      Seq("j1" -> byId(1), "j2" -> byId(2), "j4" -> byId(4)).foreach { case (tag, rows) =>
        assert(java.atTag(name, tag) == rows, s"Java reading tag $tag after our expiry")
        assert(ourVersion(t, s"'$tag'") == rows, s"our reading of tag $tag after our expiry")
      }
      // And Java keeps writing on top of what we left.
      java.insert(name, Seq("d1", 8, "h"))
      assert(ours(s"SELECT * FROM paimon.default.$t") == JavaPaimon.sorted(latest :+ Seq("d1", 8, "h")))
    }
  }
}
