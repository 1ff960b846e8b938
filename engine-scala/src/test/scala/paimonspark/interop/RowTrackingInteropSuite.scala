package paimonspark.interop

import scala.jdk.CollectionConverters._

import org.apache.paimon.append.AppendCompactCoordinator
import org.apache.paimon.operation.BaseAppendFileStoreWrite
import org.apache.paimon.schema.Schema
import org.apache.paimon.table.SpecialFields
import org.apache.paimon.table.sink.CommitMessageImpl
import org.apache.paimon.types.DataTypes
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.LocalSession

/**
 * `t$row_tracking` over a table Paimon's Java core wrote with `row-tracking.enabled`, read row for
 * row as Java's own `RowTrackingTable` reads it. The table is partitioned, so one commit's row ids
 * spread over partitions, and compacted as Paimon's compact procedure compacts it: the compacted
 * files hold their rows' ids and sequence numbers, which are then neither positions nor one number
 * per file, and a later commit's files count ids from where the earlier ones stopped.
 */
class RowTrackingInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("row-tracking")
  private lazy val java = new JavaPaimon(warehouse)
  private val name = "default.tracked"

  /** Snapshots 1 and 2 append ids 1..4 and 5..8 over partitions a and b, 3 compacts them, 4 appends 9 and 10. */
  private lazy val tracked: String = {
    val schema = Schema.newBuilder().column("id", DataTypes.INT()).column("name", DataTypes.STRING())
      .column("p", DataTypes.STRING()).partitionKeys("p")
      .option("row-tracking.enabled", "true").option("compaction.min.file-num", "2").build()
    java.createTable(name, schema)
    def rows(ids: Range) = ids.map(i => Seq(i, s"row-$i", if (i % 2 == 0) "a" else "b"))
    java.insert(name, rows(1 to 4): _*)
    java.insert(name, rows(5 to 8): _*)
    compact()
    java.insert(name, rows(9 to 10): _*)
    name
  }

  /** The system table as our catalog names it. */
  private lazy val rowTracking = s"paimon.default.`${tracked.stripPrefix("default.")}$$row_tracking`"

  /** Paimon's Spark compact procedure on an unaware-bucket table: its coordinator's tasks, written with the row-tracking columns. */
  private def compact(): Unit = {
    val table = java.table(name)
    val write = table.store().newWrite("compactor").asInstanceOf[BaseAppendFileStoreWrite]
    write.withWriteType(SpecialFields.rowTypeWithRowTracking(table.rowType()))
    val commit = table.newBatchWriteBuilder().newCommit()
    try {
      val tasks = new AppendCompactCoordinator(table, false).run().asScala
      assert(tasks.size == 2, "each partition's two files are compacted")
      val messages = tasks.map(_.doCompact(table, write))
      val compacted = messages.flatMap(_.asInstanceOf[CommitMessageImpl].compactIncrement().compactAfter().asScala)
      assert(compacted.forall(f => f.firstRowId() == null && f.writeCols().asScala.takeRight(2) ==
        Seq(SpecialFields.ROW_ID.name(), SpecialFields.SEQUENCE_NUMBER.name())))
      commit.commit(messages.asJava)
    } finally { write.close(); commit.close() }
  }

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))

  test("t$row_tracking gives Java's rows, row ids and sequence numbers, at the latest snapshot and before compaction") {
    val rows = ours(s"SELECT * FROM $rowTracking")
    assert(rows == java.rows(s"$tracked$$row_tracking"))
    assert(spark.table(rowTracking).schema.takeRight(2).map(f => (f.name, f.dataType.sql, f.nullable))
      == Seq(("_ROW_ID", "BIGINT", false), ("_SEQUENCE_NUMBER", "BIGINT", false)))
    // Ids are every row's for life, 0..9; in a compacted file they are not the rows' positions.
    assert(rows.map(_(3)).toSet == (0L to 9L).toSet)
    assert(rows.filter(_(2) == "a").map(_(3).asInstanceOf[Long]).sliding(2).exists { case Seq(x, y) => y != x + 1 })
    assert(rows.map(_(4)).toSet == Set(1L, 2L, 4L))
    assert(ours(s"SELECT * FROM $rowTracking VERSION AS OF 2") ==
      java.rows(s"$tracked$$row_tracking", "scan.snapshot-id" -> "2"))
    assert(ours(s"SELECT p, count(*), max(_SEQUENCE_NUMBER) FROM $rowTracking GROUP BY p") == Seq(Seq("a", 5L, 4L),
      Seq("b", 5L, 4L)))
    val changes = intercept[UnsupportedFeatureException](
      spark.read.option("incremental-between", "1,2").table(rowTracking).collect())
    assert(changes.value == "incremental-between")
    assert(ours(s"SELECT _ROW_ID, id FROM $rowTracking WHERE p = 'b' AND _ROW_ID > 3") ==
      rows.filter(r => r(2) == "b" && r(3).asInstanceOf[Long] > 3).map(r => Seq(r(3), r(0))))
  }

  test("the table itself reads as Java reads it, compacted files with their row-tracking columns included") {
    assert(ours(s"SELECT * FROM paimon.$tracked") == java.rows(tracked))
  }

  test("a table without row tracking has no t$row_tracking, with Paimon's message") {
    spark.sql("CREATE TABLE paimon.default.untracked (id INT)")
    val javaMessage = intercept[IllegalArgumentException](java.rows("default.untracked$row_tracking")).getMessage
    val e = intercept[UnsupportedFeatureException](spark.table("paimon.default.`untracked$row_tracking`"))
    assert(e.value == "row-tracking.enabled")
    assert(e.getMessage == javaMessage.replace("Table untracked", "Table paimon.default.untracked"), javaMessage)
  }
}
