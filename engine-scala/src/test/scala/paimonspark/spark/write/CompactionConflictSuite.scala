package paimonspark.spark.write

import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.CommitConflictException
import paimonspark.format.metadata.CommitKind
import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.spark.LocalSession
import paimonspark.spark.read.SparkFileReader
import paimonspark.table.FileStoreTable
import paimonspark.table.compact.{AppendCompaction, TableCompaction}

/**
 * Compactions that race, with real Spark writes: both are planned on the same snapshot and run,
 * then committed one after the other, which is the interleaving two jobs can produce. Primary-key
 * tables merge sorted runs; append tables rewrite small files.
 */
class CompactionConflictSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("compaction-conflicts")

  override def afterAll(): Unit = spark.stop()

  private def load(name: String): FileStoreTable = FileStoreTable.load(
    new FileIO(new HadoopConf(spark.sessionState.newHadoopConf())), new Path(warehouse.resolve(s"default.db/$name").toUri))

  private def writeRuns(name: String, runs: Int): FileStoreTable = {
    spark.sql(s"CREATE TABLE paimon.default.$name (id INT, v STRING) TBLPROPERTIES " +
      "('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')")
    (1 to runs).foreach(i => spark.sql(s"INSERT INTO paimon.default.$name VALUES ($i, 'a'), (${i + 10}, 'b'), (1, 'v$i')"))
    load(name)
  }

  private def contents(name: String): Seq[(Int, String)] =
    spark.table(s"paimon.default.$name").collect().map(r => (r.getInt(0), r.getString(1))).toSeq.sorted

  test("the second of two compactions of one bucket fails with a conflict and commits nothing") {
    val table = writeRuns("raced", 3)
    val before = contents("raced")
    val reader = SparkFileReader.forCompaction(table)
    val first = TableCompaction.plan(table, table.snapshotManager.latest(), None, full = true).map(TableCompaction.run(table, _, reader))
    val second = TableCompaction.plan(table, table.snapshotManager.latest(), None, full = true).map(TableCompaction.run(table, _, reader))
    val winner = TableCompaction.commit(table, "first", first)
    val error = intercept[CommitConflictException](TableCompaction.commit(table, "second", second))
    assert(error.getMessage.contains("already removed") && error.getMessage.contains("nothing was committed"))
    val latest = table.snapshotManager.latest().get
    assert(winner.contains(latest.id) && latest.commitKind == CommitKind.Compact)
    assert(contents("raced") == before && before.contains((1, "v3")))
    // The loser's files were removed again; the winner's are in place.
    second.flatMap(_.added).foreach(e => assert(!table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file))))
    first.flatMap(_.added).foreach(e => assert(table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file))))
  }

  test("a losing compaction that only moved a file up leaves that file in place") {
    spark.sql("CREATE TABLE paimon.default.moved (id INT, v STRING) TBLPROPERTIES " +
      "('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.moved VALUES (1, 'a'), (2, 'b')")
    val table = load("moved")
    val reader = SparkFileReader.forCompaction(table)
    val first = TableCompaction.plan(table, table.snapshotManager.latest(), None, full = true).map(TableCompaction.run(table, _, reader))
    val second = TableCompaction.plan(table, table.snapshotManager.latest(), None, full = true).map(TableCompaction.run(table, _, reader))
    // One level-0 file overlapping nothing: both compactions move it to the top level, same name.
    assert(first.flatMap(_.added).map(_.file.fileName) == first.flatMap(_.removed).map(_.file.fileName))
    assert(first.flatMap(_.added).map(_.file.level) == Seq(5))
    TableCompaction.commit(table, "first", first)
    intercept[CommitConflictException](TableCompaction.commit(table, "second", second))
    second.flatMap(_.added).foreach(e => assert(table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file))))
    assert(contents("moved") == Seq((1, "a"), (2, "b")))
  }

  test("an append committed while a compaction runs does not conflict with it") {
    val table = writeRuns("appended", 3)
    val reader = SparkFileReader.forCompaction(table)
    val results = TableCompaction.plan(table, table.snapshotManager.latest(), None, full = true).map(TableCompaction.run(table, _, reader))
    spark.sql("INSERT INTO paimon.default.appended VALUES (1, 'newest'), (99, 'z')")
    assert(TableCompaction.commit(table, "compactor", results).nonEmpty)
    val rows = contents("appended")
    assert(rows.contains((1, "newest")) && rows.contains((99, "z")) && rows.contains((13, "b")))
    assert(table.snapshotManager.latest().get.commitKind == CommitKind.Compact)
  }

  private def writeSmallFiles(name: String, files: Int): FileStoreTable = {
    spark.sql(s"CREATE TABLE paimon.default.$name (id INT, v STRING) TBLPROPERTIES ('write-only' = 'true')")
    (1 to files).foreach(i => spark.sql(s"INSERT INTO paimon.default.$name VALUES ($i, 'a'), (${i + 10}, 'b')"))
    load(name)
  }

  test("the second of two compactions of an append table's small files fails with a conflict") {
    val table = writeSmallFiles("raced_append", 5)
    val before = contents("raced_append")
    val reader = SparkFileReader.forCompaction(table)
    val first = AppendCompaction.plan(table, table.snapshotManager.latest(), None).map(AppendCompaction.run(table, _, reader))
    val second = AppendCompaction.plan(table, table.snapshotManager.latest(), None).map(AppendCompaction.run(table, _, reader))
    assert(first.map(_.task.files.size) == Seq(5))
    val winner = AppendCompaction.commit(table, "first", first)
    val error = intercept[CommitConflictException](AppendCompaction.commit(table, "second", second))
    assert(error.getMessage.contains("already removed") && error.getMessage.contains("nothing was committed"))
    val latest = table.snapshotManager.latest().get
    assert(winner.contains(latest.id) && latest.commitKind == CommitKind.Compact)
    assert(contents("raced_append") == before && before.size == 10)
    second.flatMap(_.added).foreach(e => assert(!table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file))))
    first.flatMap(_.added).foreach(e => assert(table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file))))
  }

  test("an append committed while an append table's small files are rewritten does not conflict") {
    val table = writeSmallFiles("appended_append", 5)
    val results = AppendCompaction.plan(table, table.snapshotManager.latest(), None).map(AppendCompaction.run(table, _, SparkFileReader.forCompaction(table)))
    spark.sql("INSERT INTO paimon.default.appended_append VALUES (99, 'z')")
    assert(AppendCompaction.commit(table, "compactor", results).nonEmpty)
    assert(contents("appended_append").size == 11 && contents("appended_append").contains((99, "z")))
    val store = table.newManifestStore()
    val live = store.liveFiles(store.dataManifests(table.snapshotManager.latest().get)).map(_.file)
    // The compacted file and the one appended meanwhile.
    assert(live.map(_.rowCount) == Seq(1L, 10L) && live.map(_.fileSource) == Seq(Some(0), Some(1)))
  }
}
