package paimonspark.interop

import java.nio.ByteBuffer
import java.nio.file.Files

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.paimon.types.RowKind
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.DeletionVector
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
   * A random walk of upserts and deletes of 40 keys in eight commits, each compacted inline; the
   * model is what each engine makes of them. `deletes`: whether the engine is given deletions;
   * `everySnapshot`: whether Java and we then read each snapshot alike, compactions' included.
   */
  private def walk(table: String, options: String, deletes: Boolean, model: (Option[Seq[Any]], Seq[Any]) => Seq[Any],
      everySnapshot: Boolean = false): Unit = {
    sql(s"CREATE TABLE paimon.default.$table (id INT, a STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', " +
      s"'bucket' = '2', 'deletion-vectors.enabled' = 'true', 'num-sorted-run.compaction-trigger' = '3'$options)")
    val random = new Random(table.hashCode)
    val state = mutable.Map.empty[Int, Seq[Any]]
    (1 to 8).foreach { step =>
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
    }
    if (everySnapshot) java.snapshotIds(s"default.$table").foreach { id =>
      assert(ours(s"SELECT * FROM paimon.default.$table VERSION AS OF $id") == java.atSnapshot(s"default.$table", id),
        s"$table, snapshot $id")
    }
    assert(count(s"SELECT count(*) FROM paimon.default.`$table$$table_indexes`") > 0, s"$table has no vectors")
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

  test("64-bit vectors and the lookup changelog producer together; expiry keeps the index files still used") {
    walk("lookup64", ", 'changelog-producer' = 'lookup', 'deletion-vectors.bitmap64' = 'true'", deletes = true, upsert)
    val changes = ours("SELECT * FROM paimon.default.lookup64 CHANGES FROM VERSION 1 TO VERSION 4")
    assert(changes.nonEmpty)
    val range = spark.sql("SELECT file_name, inline(dv_ranges) FROM paimon.default.`lookup64$table_indexes`").head()
    val file = Files.readAllBytes(warehouse.resolve("default.db/lookup64/index").resolve(range.getString(0)))
    assert(Integer.reverseBytes(ByteBuffer.wrap(file).getInt(range.getInt(2) + 4)) == DeletionVector.Magic64)
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

  test("Paimon's rules: no switching without deletion-vectors.modifiable, nor with first-row, full-compaction or " +
    "without a primary key") {
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
    assert(refused("").isInstanceOf[UnsupportedFeatureException])
    assert(!Files.exists(warehouse.resolve("default.db").resolve("bad")))
  }
}
