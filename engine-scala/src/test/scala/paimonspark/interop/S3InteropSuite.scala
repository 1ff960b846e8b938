package paimonspark.interop

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{DataTypes, RowKind}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.fs.MotoServer
import paimonspark.spark.LocalSession

/**
 * Tables on S3 (a moto server) across engines: Apache Paimon's Java core, with its own S3 file I/O
 * (`paimon-s3`), reads what we write there, and we read and extend what it writes.
 */
class S3InteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val moto = { val m = MotoServer.start(); m.createBucket("s3-interop"); m }
  private lazy val spark = LocalSession.onWarehouse("s3-interop", "s3a://s3-interop/wh",
    moto.s3aSettings.map { case (k, v) => s"spark.hadoop.$k" -> v }: _*)
  private lazy val java = new JavaPaimon("s3://s3-interop/wh", Map("s3.endpoint" -> moto.endpoint,
    "s3.endpoint.region" -> "us-east-1", "s3.access-key" -> "test", "s3.secret-key" -> "test",
    "s3.path-style-access" -> "true"))

  override def afterAll(): Unit = { java.close(); spark.stop(); moto.stop() }

  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))

  test("Paimon's Java core reads our append and primary-key tables on S3, compacted and not") {
    spark.sql("CREATE TABLE paimon.default.ours_pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '2', 'num-sorted-run.compaction-trigger' = '2')")
    spark.sql("CREATE TABLE paimon.default.ours_log (id INT, v STRING)")
    for (i <- 1 to 3) {
      spark.sql(s"INSERT INTO paimon.default.ours_pk VALUES ($i, 'v$i'), (1, 'one-$i')")
      spark.sql(s"INSERT INTO paimon.default.ours_log VALUES ($i, 'v$i')")
    }
    for (t <- Seq("ours_pk", "ours_log")) assert(java.rows(s"default.$t") == ours(s"SELECT * FROM paimon.default.$t"))
    assert(java.rows("default.ours_pk") == Seq(Seq(1, "one-3"), Seq(2, "v2"), Seq(3, "v3")))
    assert(java.latestId("default.ours_pk") == spark.sql("SELECT max(snapshot_id) FROM paimon.default.`ours_pk$snapshots`")
      .collect().headOption.map(_.getLong(0)))
  }

  test("we read a primary-key table Paimon's Java core wrote on S3, and it reads what we add") {
    val schema = Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").build()
    java.createTable("default.theirs", schema)
    java.write("default.theirs", Seq(RowKind.INSERT -> Seq(1, "a"), RowKind.INSERT -> Seq(2, "b")))
    java.write("default.theirs", Seq(RowKind.UPDATE_AFTER -> Seq(2, "B"), RowKind.DELETE -> Seq(1, "a")))
    assert(ours("SELECT * FROM paimon.default.theirs") == Seq(Seq(2, "B")))
    spark.sql("INSERT INTO paimon.default.theirs VALUES (3, 'c')")
    assert(java.rows("default.theirs") == Seq(Seq(2, "B"), Seq(3, "c")))
  }
}
