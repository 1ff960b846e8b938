package paimonspark.interop

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Apache Paimon's Java core reads tables after our DELETE, UPDATE and MERGE INTO: an append table
 * rewritten copy-on-write, a primary-key table holding retractions and updates of single keys, and
 * a partition dropped by ALTER TABLE, all after a rename and an added column, so files of two
 * schemas are live together.
 */
class RowLevelInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("row-level-interop")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).map(_.toSeq))

  Seq("append" -> "", "primary-key" -> ", 'primary-key' = 'id, p', 'bucket' = '2'").foreach { case (kind, properties) =>
    test(s"$kind table: Java reads every snapshot after our column changes, DELETE, UPDATE, MERGE INTO and DROP PARTITION") {
      val t = s"dml_${kind.replace('-', '_')}"
      sql(s"CREATE TABLE paimon.default.$t (id INT, v STRING, p INT) PARTITIONED BY (p) " +
        s"TBLPROPERTIES ('write-only' = 'true' $properties)")
      sql(s"INSERT INTO paimon.default.$t VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', 2), (5, 'e', 3)")
      // The statements below change rows written under the old schema: files of both schemas end up live.
      sql(s"ALTER TABLE paimon.default.$t RENAME COLUMN v TO w")
      sql(s"ALTER TABLE paimon.default.$t ADD COLUMN n BIGINT")
      sql(s"DELETE FROM paimon.default.$t WHERE id = 2")
      sql(s"UPDATE paimon.default.$t SET w = upper(w), n = id * 10 WHERE id >= 4")
      sql("CREATE OR REPLACE TEMP VIEW src AS SELECT * FROM VALUES " +
        "(1, 'x', 1, 7L), (9, 'new', 2, 9L), (3, 'del', 2, 0L) AS s(id, w, p, n)")
      sql(s"""MERGE INTO paimon.default.$t t USING src s ON t.id = s.id AND t.p = s.p
              WHEN MATCHED AND s.w = 'del' THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""")
      sql(s"ALTER TABLE paimon.default.$t DROP PARTITION (p = 3)")
      val snapshots = sql(s"SELECT snapshot_id FROM paimon.default.`$t$$snapshots`").map(_.getLong(0))
      assert(snapshots.size == 5)
      snapshots.foreach { id =>
        assert(java.atSnapshot(s"default.$t", id) == ours(s"SELECT * FROM paimon.default.$t VERSION AS OF $id"),
          s"snapshot $id")
      }
      assert(java.rows(s"default.$t") == Seq(Seq(1, "x", 1, 7L), Seq(4, "D", 2, 40L), Seq(9, "new", 2, 9L)))
    }
  }

  test("aggregation.remove-record-on-delete: Java merges our -D rows as we do, before and after compaction") {
    sql("CREATE TABLE paimon.default.agg_rm (id INT, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
      "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', 'aggregation.remove-record-on-delete' = " +
      "'true', 'write-only' = 'true')")
    sql("INSERT INTO paimon.default.agg_rm VALUES (1, 10), (2, 20), (3, 30)")
    sql("INSERT INTO paimon.default.agg_rm VALUES (1, 1), (2, 2)")
    sql("DELETE FROM paimon.default.agg_rm WHERE id = 1")
    sql("INSERT INTO paimon.default.agg_rm VALUES (2, 5)")
    val expected = Seq(Seq(2, 27L), Seq(3, 30L))
    assert(ours("SELECT * FROM paimon.default.agg_rm") == expected && java.rows("default.agg_rm") == expected)
    sql("CALL paimon.sys.compact(table => 'default.agg_rm')")
    assert(ours("SELECT * FROM paimon.default.agg_rm") == expected && java.rows("default.agg_rm") == expected)
  }

  test("partial-update removing rows on -D (remove-record-on-delete, on a sequence group): Java merges as we do") {
    Seq("pu_rm" -> "'partial-update.remove-record-on-delete' = 'true'",
      "pu_grp" -> "'fields.s.sequence-group' = 'n', 'partial-update.remove-record-on-sequence-group' = 's'")
      .foreach { case (t, extra) =>
        sql(s"CREATE TABLE paimon.default.$t (id INT, s INT, n BIGINT, w STRING, op STRING) TBLPROPERTIES (" +
          s"'primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'partial-update', 'write-only' = 'true', " +
          s"'rowkind.field' = 'op', $extra)")
        sql(s"INSERT INTO paimon.default.$t VALUES (1, 1, 10, 'a', '+I'), (2, 1, 20, 'b', '+I'), (3, 1, 30, 'c', '+I')")
        // CDC -D rows carry the row's values: key 1's group sequence is not older, key 2's is.
        sql(s"INSERT INTO paimon.default.$t VALUES (1, 1, 10, 'a', '-D'), (2, 0, 20, 'b', '-D')")
        // A later version of a removed key goes on from the -D's values, in both engines.
        sql(s"INSERT INTO paimon.default.$t VALUES (1, 2, NULL, NULL, '+I')")
        val ourRows = ours(s"SELECT id, s, n, w FROM paimon.default.$t")
        assert(java.rows(s"default.$t").map(_.take(4)) == ourRows, t)
        val kept = if (t == "pu_rm") Seq(1, 3) else Seq(1, 2, 3)
        assert(ourRows.map(_.head) == kept, t)
        sql(s"CALL paimon.sys.compact(table => 'default.$t')")
        assert(java.rows(s"default.$t").map(_.take(4)) == ourRows, t)
        assert(ours(s"SELECT id, s, n, w FROM paimon.default.$t") == ourRows, t)
      }
  }

  test("DELETE on first-row and aggregation tables rewrites compacted files, and Java reads the result") {
    Seq("first-row" -> "", "aggregation" -> ", 'fields.n.aggregate-function' = 'sum'").foreach { case (engine, extra) =>
      val t = s"cow_${engine.replace('-', '_')}"
      sql(s"CREATE TABLE paimon.default.$t (id INT, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', " +
        s"'merge-engine' = '$engine', 'write-only' = 'true'$extra)")
      sql(s"INSERT INTO paimon.default.$t VALUES (1, 10), (2, 20), (3, 30), (4, 40)")
      sql(s"INSERT INTO paimon.default.$t VALUES (1, 1), (3, 3)")
      sql(s"CALL paimon.sys.compact(table => 'default.$t')")
      sql(s"DELETE FROM paimon.default.$t WHERE id IN (2, 3)")
      val expected = if (engine == "first-row") Seq(Seq(1, 10L), Seq(4, 40L)) else Seq(Seq(1, 11L), Seq(4, 40L))
      assert(ours(s"SELECT * FROM paimon.default.$t") == expected, engine)
      assert(java.rows(s"default.$t") == expected, engine)
    }
  }

  test("rescale: Java writes into the rescaled partition and refuses the one still at the old bucket count") {
    sql("CREATE TABLE paimon.default.rescaled (id INT, p STRING, v STRING) PARTITIONED BY (p) " +
      "TBLPROPERTIES ('primary-key' = 'id, p', 'bucket' = '2')")
    sql("INSERT INTO paimon.default.rescaled SELECT CAST(id AS INT), IF(id % 2 = 0, 'a', 'b'), 'x' FROM range(0, 40)")
    sql("ALTER TABLE paimon.default.rescaled SET TBLPROPERTIES ('bucket' = '4')")
    sql("CALL paimon.sys.rescale(table => 'default.rescaled', partitions => 'p=a')")
    java.insert("default.rescaled", Seq(0, "a", "java"))
    // Java checks per bucket, so among several keys one meets a bucket of files at the old count.
    val refused = intercept[RuntimeException](java.insert("default.rescaled", (1 until 9 by 2).map(Seq(_, "b", "java")): _*))
    assert(refused.getMessage.contains("with a new bucket num 4, but the previous bucket num is 2"))
    val expected = (0 until 40).map(i => Seq(i, if (i % 2 == 0) "a" else "b", if (i == 0) "java" else "x"))
    assert(java.rows("default.rescaled") == JavaPaimon.sorted(expected))
    assert(ours("SELECT * FROM paimon.default.rescaled") == JavaPaimon.sorted(expected))
    assert(ours("SELECT v FROM paimon.default.rescaled WHERE id = 0 AND p = 'a'") == Seq(Seq("java")))
  }
}
