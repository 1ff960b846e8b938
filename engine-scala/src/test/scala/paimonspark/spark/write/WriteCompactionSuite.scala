package paimonspark.spark.write

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.metadata.CommitKind
import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.spark.{ListenerMarker, LocalSession, SparkTable}
import paimonspark.table.FileStoreTable

/**
 * The inline compaction a primary-key write's tasks run on the buckets they wrote
 * ([[paimonspark.table.compact.WriteCompaction]]): in the write's own job, committed after the
 * write's snapshot, dropped when a concurrent compaction took its files, deleted with an aborted write.
 */
class WriteCompactionSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("write-compaction")

  override def afterAll(): Unit = spark.stop()

  private def load(name: String): FileStoreTable = FileStoreTable.load(
    new FileIO(new HadoopConf(spark.sessionState.newHadoopConf())), new Path(warehouse.resolve(s"default.db/$name").toUri))

  private def contents(name: String): Seq[(Int, String)] =
    spark.table(s"paimon.default.$name").collect().map(r => (r.getInt(0), r.getString(1))).toSeq.sorted

  /** A table of `buckets` whose second sorted run in a bucket triggers a compaction, with `runs` writes. */
  private def create(name: String, runs: Int, buckets: Int = 1): FileStoreTable = {
    spark.sql(s"CREATE TABLE paimon.default.$name (id INT, v STRING) TBLPROPERTIES " +
      s"('primary-key' = 'id', 'bucket' = '$buckets', 'num-sorted-run.compaction-trigger' = '2')")
    (1 to runs).foreach(i => spark.sql(s"INSERT INTO paimon.default.$name VALUES ($i, 'a'), (${i + 10}, 'b'), (1, 'v$i')"))
    load(name)
  }

  private def kinds(table: FileStoreTable): Seq[String] = {
    val snapshots = table.snapshotManager
    (1L to snapshots.latestId().get).map(id => snapshots.readIfExists(id).get.commitKind)
  }

  private def exists(table: FileStoreTable, entries: Seq[paimonspark.format.metadata.ManifestEntry]): Seq[Boolean] =
    entries.map(e => table.io.exists(table.dataFilePath(e.partition, e.bucket, e.file)))

  /**
   * Spark tasks, one per element of `tasks`, each writing its rows (id, value) through one DataSource V2
   * write of the table; their messages not yet committed.
   */
  private def taskWrites(name: String, tasks: Seq[Seq[(Int, Any)]]): (PaimonWrite, Seq[FilesWritten]) = {
    val write = new PaimonWrite(new SparkTable(load(name), s"default.$name"), None, "test")
    val factory = write.createBatchWriterFactory(null)
    val messages = spark.sparkContext.parallelize(tasks, tasks.size).map { rows =>
      val writer = factory.createWriter(0, 0)
      rows.foreach { case (id, v) =>
        writer.write(new GenericInternalRow(Array[Any](id, v match { case s: String => UTF8String.fromString(s); case o => o })))
      }
      writer.commit()
    }.collect()
    (write, messages.toSeq.map(_.asInstanceOf[FilesWritten]))
  }

  private def taskWrite(name: String, rows: Seq[(Int, String)]): (PaimonWrite, FilesWritten) = {
    val (write, messages) = taskWrites(name, Seq(rows))
    (write, messages.head)
  }

  test("a write's tasks compact the buckets they wrote in the write's own job, committed after its snapshot") {
    val descriptions = new ConcurrentLinkedQueue[String]()
    val listener = new SparkListener {
      override def onJobStart(start: SparkListenerJobStart): Unit =
        descriptions.add(Option(start.properties).flatMap(p => Option(p.getProperty("spark.job.description"))).getOrElse(""))
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      val table = create("in_tasks", 2, buckets = 2)
      ListenerMarker.run(spark, descriptions.contains(ListenerMarker.Description))
      assert(!descriptions.asScala.exists(_.startsWith("paimon compact")), descriptions)
      assert(kinds(table) == Seq(CommitKind.Append, CommitKind.Append, CommitKind.Compact))
      val store = table.newManifestStore()
      val live = store.liveFiles(store.dataManifests(table.snapshotManager.latest().get))
      assert(live.exists(_.file.level > 0), live.map(f => (f.bucket, f.file.level)))
      assert(contents("in_tasks") == Seq((1, "v2"), (2, "a"), (11, "b"), (12, "b")))
    } finally spark.sparkContext.removeSparkListener(listener)
  }

  test("a task's compaction that lost its files to a concurrent compaction is dropped; the write lands") {
    val table = create("raced", 1)
    val (write, message) = taskWrite("raced", Seq(1 -> "mine", 7 -> "c"))
    assert(message.compacted.nonEmpty)
    spark.sql("CALL paimon.sys.compact(table => 'default.raced', compact_strategy => 'full')")
    write.commit(Array(message))
    assert(kinds(table) == Seq(CommitKind.Append, CommitKind.Compact, CommitKind.Append))
    assert(contents("raced") == Seq((1, "mine"), (7, "c"), (11, "b")))
    val moved = message.compacted.flatMap(_.removed).map(_.file.fileName).toSet
    val rewritten = message.compacted.flatMap(_.added).filterNot(e => moved(e.file.fileName))
    assert(rewritten.nonEmpty && exists(table, rewritten).forall(!_))
  }

  test("an aborted write deletes its tasks' compaction output with its files, not the files compaction only read") {
    val table = create("aborted", 1)
    val before = contents("aborted")
    val (write, message) = taskWrite("aborted", Seq(1 -> "lost", 8 -> "d"))
    val results = message.compacted
    assert(results.nonEmpty)
    write.abort(Array(message))
    val restored = results.flatMap(_.removed).filterNot(e => message.files.data.exists(_.file.fileName == e.file.fileName))
    assert(restored.nonEmpty && exists(table, restored).forall(identity))
    assert(exists(table, results.flatMap(_.added) ++ message.files.data).forall(!_))
    assert(kinds(table) == Seq(CommitKind.Append) && contents("aborted") == before)
  }

  test("a bucket two tasks compacted is compacted by the driver instead: its old files are merged once") {
    spark.sql("CREATE TABLE paimon.default.twice (id INT, v BIGINT) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '1', 'num-sorted-run.compaction-trigger' = '2', 'merge-engine' = 'aggregation', " +
      "'fields.v.aggregate-function' = 'sum')")
    // Two runs: a third, each task's own, is past the trigger.
    spark.sql("INSERT INTO paimon.default.twice VALUES (1, 10), (2, 20)")
    spark.sql("INSERT INTO paimon.default.twice VALUES (3, 30)")
    val table = load("twice")
    val (write, messages) = taskWrites("twice", Seq(Seq(1 -> 1L), Seq(1 -> 100L)))
    assert(messages.map(_.compacted.size) == Seq(1, 1))
    write.commit(messages.toArray)
    assert(kinds(table) == Seq(CommitKind.Append, CommitKind.Append, CommitKind.Append, CommitKind.Compact))
    val moved = messages.flatMap(_.compacted).flatMap(_.removed).map(_.file.fileName).toSet
    assert(exists(table, messages.flatMap(_.compacted).flatMap(_.added).filterNot(e => moved(e.file.fileName))).forall(!_))
    assert(spark.table("paimon.default.twice").collect().map(r => (r.getInt(0), r.getLong(1))).toSeq.sorted == Seq((1, 111L), (2, 20L), (3, 30L)))
  }
}
