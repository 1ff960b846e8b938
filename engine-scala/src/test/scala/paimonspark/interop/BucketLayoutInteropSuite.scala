package paimonspark.interop

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Fixed-bucket layouts against Apache Paimon's Java core: for bucketed append tables and
 * primary-key tables, with each `bucket-function.type`, we put every row in the bucket Java puts
 * the same row in (the same rows written by both into twin tables), and each engine reads and
 * appends to what the other wrote.
 */
class BucketLayoutInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("bucket-layout-interop")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).map(_.toSeq))

  private val rows = (0 until 60).map(i => Seq(i - 20, s"s$i", (i * 7919L) % 1000))

  // Each function once, both layouts among them: a layout only decides which columns are hashed.
  Seq("default" -> "append", "mod" -> "primary-key", "hive" -> "append").foreach { case (function, kind) =>
    val key = if (kind == "append") "'bucket-key' = 'k'" else "'primary-key' = 'k'"
    locally {
      test(s"$kind table, bucket-function.type = $function: every row in Java's bucket, each engine appends to the other's") {
        val t = s"${kind.replace('-', '_')}_$function"
        Seq(t, s"${t}_java").foreach { name =>
          sql(s"CREATE TABLE paimon.default.$name (k INT NOT NULL, s STRING, n BIGINT) TBLPROPERTIES ($key, " +
            s"'bucket' = '5', 'bucket-function.type' = '$function')")
        }
        sql(s"INSERT INTO paimon.default.$t VALUES ${rows.map(r => s"(${r(0)}, '${r(1)}', ${r(2)})").mkString(", ")}")
        java.insert(s"default.${t}_java", rows: _*)
        val expected = java.buckets(s"default.${t}_java")
        assert(expected.values.toSet.size > 1)
        assert(java.buckets(s"default.$t") == expected)
        // Java appends to ours, we append to Java's; both read both.
        java.insert(s"default.$t", Seq(100, "j", 1L))
        sql(s"INSERT INTO paimon.default.${t}_java VALUES (100, 'j', 1)")
        val all = JavaPaimon.sorted(rows :+ Seq(100, "j", 1L))
        Seq(t, s"${t}_java").foreach { name =>
          assert(java.rows(s"default.$name") == all, name)
          assert(ours(s"SELECT * FROM paimon.default.$name") == all, name)
          // A point lookup reads the key's bucket only, under the table's function.
          assert(ours(s"SELECT s FROM paimon.default.$name WHERE k = 7") == Seq(Seq("s27")), name)
        }
        assert(java.buckets(s"default.${t}_java") == java.buckets(s"default.$t"))
      }
    }
  }

  test("postpone bucket: Java's postponed rows are unread here until our compaction assigns them, then Java reads them") {
    sql("CREATE TABLE paimon.default.postponed (k INT NOT NULL, s STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'k', " +
      "'bucket' = '-2', 'postpone.default-bucket-num' = '3')")
    java.insert("default.postponed", rows: _*)
    assert(ours("SELECT * FROM paimon.default.postponed").isEmpty)
    assert(java.rows("default.postponed").isEmpty)
    sql("CALL paimon.sys.compact(table => 'default.postponed')")
    assert(java.rows("default.postponed") == JavaPaimon.sorted(rows))
    assert(java.buckets("default.postponed").values.toSet == Set(0, 1, 2))
    // A batch write of ours goes into the three buckets; Java's newer postponed version wins after compaction.
    sql("INSERT INTO paimon.default.postponed VALUES (0, 'ours', 0), (1, 'ours', 1)")
    java.insert("default.postponed", Seq(1, "java", 2L))
    sql("CALL paimon.sys.compact(table => 'default.postponed')")
    val expected = JavaPaimon.sorted(rows.map {
      case Seq(0, _, _) => Seq(0, "ours", 0L)
      case Seq(1, _, _) => Seq(1, "java", 2L)
      case r => r
    })
    assert(java.rows("default.postponed") == expected)
    assert(ours("SELECT * FROM paimon.default.postponed") == expected)
  }
}
