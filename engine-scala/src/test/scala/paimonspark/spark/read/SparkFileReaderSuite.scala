package paimonspark.spark.read

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.spark.LocalSession
import paimonspark.table.FileStoreTable
import paimonspark.table.scan.ScanPlanner

/**
 * Two data files of one bucket read in step, as a merge reads them. Spark's factory closes the last
 * reader it made when it makes the next, which zeroed the first file's rows once both were open.
 */
class SparkFileReaderSuite extends AnyFunSuite {
  test("files read in step each return their own rows") {
    val (spark, warehouse) = LocalSession.start("kv-reader")
    try {
      spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING) TBLPROPERTIES " +
        "('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true')")
      spark.sql("INSERT INTO paimon.default.t SELECT CAST(id AS INT), concat('a', id) FROM range(10)")
      spark.sql("INSERT INTO paimon.default.t SELECT CAST(id AS INT), concat('b', id) FROM range(5, 15)")
      val table = FileStoreTable.load(new FileIO(new HadoopConf(spark.sessionState.newHadoopConf())),
        new Path(warehouse.resolve("default.db/t").toUri))
      val split = new ScanPlanner(table).plan(table.snapshotManager.latest(), None).head
      val reader = SparkFileReader.forCompaction(table)
      val runs = split.files.sortBy(_.minSequenceNumber).map(f => reader.open(table.dataFilePath(split.partitionBytes,
        split.bucket, f), f.fileSize, f.schemaId))
      val seen = Array.fill(runs.size)(Seq.newBuilder[(Int, String)])
      while (runs.exists(_.hasNext)) runs.zipWithIndex.foreach { case (run, i) =>
        if (run.hasNext) { val row = run.next(); seen(i) += ((row.getInt(2), row.getUTF8String(3).toString)) }
      }
      runs.foreach(_.close())
      assert(seen(0).result() == (0 until 10).map(i => (i, s"a$i")))
      assert(seen(1).result() == (5 until 15).map(i => (i, s"b$i")))
    } finally spark.stop()
  }
}
