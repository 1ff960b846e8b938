package paimonspark.lsm

import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{AtomicType, TypeRoot}
import paimonspark.format.metadata.DataFileMeta
import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.spark.LocalSession
import paimonspark.spark.read.SparkFileReader
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.scan.ScanPlanner

/**
 * The merge on column batches against the merge of rows it replaces in compaction: over the same
 * files (level-0 runs with updates and deletes above a level of several files), both must write
 * the same files byte for byte, cut at the same rows, with the same metadata. Flat Parquet is
 * written a column at a time; nested Parquet and ORC take the row view of the gathered columns. With
 * `ignore-delete`, no retraction is written.
 */
class CompactorSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("compactor")

  private val layouts = Seq(
    "flat parquet" -> ("id BIGINT, i INT, s STRING, d DOUBLE, small DECIMAL(10, 2), wide DECIMAL(24, 4), " +
      "ts TIMESTAMP, b BOOLEAN, bin BINARY, day DATE, t TINYINT, sh SMALLINT, f FLOAT",
      "CAST(id * 7 AS INT), IF(id % 5 = 0, NULL, concat('v', id, '-', {tag})), id / 3.0, CAST(id / 7 AS DECIMAL(10, 2)), " +
      "CAST(id * 1000.5 AS DECIMAL(24, 4)), TIMESTAMP '2026-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id), " +
      "id % 2 = 0, CAST(concat('b', id) AS BINARY), DATE '2026-01-01' + CAST(id % 300 AS INT), CAST(id % 100 AS TINYINT), " +
      "CAST(id % 1000 AS SMALLINT), CAST(id AS FLOAT) / 2", "'file.format' = 'parquet', 'parquet.block.size' = '65536', " +
      "'parquet.page.size' = '4096'"),
    "nested parquet" -> ("id INT, s STRING, xs ARRAY<INT>, st STRUCT<a: INT, b: STRING>",
      "IF(id % 4 = 0, NULL, concat('v', id, '-', {tag})), array(CAST(id AS INT), 1), named_struct('a', CAST(id AS INT), 'b', {tag})",
      "'file.format' = 'parquet'"),
    "orc" -> ("id BIGINT, s STRING, d DOUBLE", "concat('v', id, '-', {tag}), id / 3.0", "'file.format' = 'orc'"),
    // Set once the deletes are written: such a table refuses DELETE.
    "ignore-delete" -> ("id BIGINT, s STRING", "concat('v', id, '-', {tag})", "'file.format' = 'parquet'"))

  layouts.foreach { case (name, (columns, values, options)) =>
    test(s"$name: a batch merge writes what the row merge writes") {
      val table = tableWith(name.replaceAll("[ -]", "_"), columns, values, options)
      val split = new ScanPlanner(table).plan(table.snapshotManager.latest(), None).head
      assert(split.files.count(_.level == 0) >= 3 && split.files.count(_.level > 0) > 1, split.files.map(_.level))
      val dir = table.paths.bucketDir(table.partitionPath(split.partitionBytes), split.bucket)
      Seq(true, false).foreach { dropRetractions =>
        val unit = CompactUnit(5, split.files)
        val byRows = compactor(table, batchMerge = false).compact(dir, unit, dropRetractions)
        val byBatches = compactor(table, batchMerge = true).compact(dir, unit, dropRetractions)
        assert(byBatches.added.size == byRows.added.size && byRows.added.size > 1)
        byRows.added.zip(byBatches.added).foreach { case (a, b) =>
          assert(comparable(a) == comparable(b))
          assert(java.util.Arrays.equals(bytes(dir, a), bytes(dir, b)), s"${a.fileName} and ${b.fileName} differ")
        }
        val deletes = byRows.added.map(_.deleteRowCount.get).sum
        // The 60 deleted keys are kept as retractions unless dropped, or ignored.
        assert(deletes == (if (dropRetractions || name == "ignore-delete") 0 else 60))
      }
    }
  }

  /**
   * A table of one bucket holding a level of several files (2,000 keys, compacted with a small
   * target file size) and three level-0 runs over it: updates of half the keys, new keys, and deletes.
   */
  private def tableWith(name: String, columns: String, values: String, options: String): FileStoreTable = {
    def insert(range: String, tag: String) =
      spark.sql(s"INSERT INTO paimon.default.$name SELECT id, ${values.replace("{tag}", s"'$tag'")} FROM range($range)")
    spark.sql(s"CREATE TABLE paimon.default.$name ($columns) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
      s"'write-only' = 'true', 'target-file-size' = '8kb', $options)")
    insert("0, 2000", "a")
    spark.sql(s"CALL paimon.sys.compact(table => 'default.$name')")
    insert("0, 2000, 2", "b")
    insert("1500, 3000", "c")
    spark.sql(s"DELETE FROM paimon.default.$name WHERE id % 50 = 3")
    if (name == "ignore_delete") spark.sql(s"ALTER TABLE paimon.default.$name SET TBLPROPERTIES ('ignore-delete' = 'true')")
    FileStoreTable.load(new FileIO(new HadoopConf(spark.sessionState.newHadoopConf())),
      new Path(warehouse.resolve(s"default.db/$name").toUri))
  }

  /** The compactor `CALL sys.compact` builds for `table`, merging by batches or by rows. */
  private def compactor(table: FileStoreTable, batchMerge: Boolean): Compactor = {
    val schema = table.schema
    val spec = MergeEngineSpec.of(table.location.toString, schema)
    val reader = SparkFileReader.forCompaction(table)
    // What a batch merge needs, so that it is the one compared: files read as batches, an integral key.
    assert(reader.columnar && (schema.fields.head.dataType match {
      case key: AtomicType => key.root == TypeRoot.BigInt || key.root == TypeRoot.Int
      case _ => false
    }))
    new Compactor(table.dataFileSettings, schema.fields,
      KeyLayout.of(table.location.toString, schema).trimmedKeys.map(schema.fieldNames.indexOf(_)), Nil, spec,
      reader, maxLevel = 5, minFileSize = 1L,
      upgrades = UpgradeRule.of(spec, fullCompactionChangelog = false, vectors = false, 5, _ => "same"),
      batchMerge = batchMerge)
  }

  /** A file's metadata but its name and time, its byte arrays (keys, statistics) as values. */
  private def comparable(f: DataFileMeta): Any = {
    def values(x: Any): Any = x match {
      case bytes: Array[Byte] => bytes.toSeq
      case p: Product => p.productIterator.map(values).toList
      case other => other
    }
    values(f.copy(fileName = "", creationTimeMillis = None))
  }

  private def bytes(dir: Path, f: DataFileMeta): Array[Byte] =
    Files.readAllBytes(java.nio.file.Paths.get(new Path(dir, f.fileName).toUri))

  override def afterAll(): Unit = spark.stop()
}
