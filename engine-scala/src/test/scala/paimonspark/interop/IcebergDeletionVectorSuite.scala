package paimonspark.interop

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{DataTypes, RowKind}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.iceberg.{IcebergDataFile, IcebergManifests, IcebergMetadata}
import paimonspark.spark.LocalSession

/**
 * Tables with deletion vectors and `metadata.iceberg.format-version` 3, read by Iceberg's own Java library
 * (which reads the vectors in Paimon's index files by offset and length; pyiceberg cannot): every snapshot
 * reads as ours, under our commits, Java's and both in turn, and the same statements through each give
 * the same delete files.
 */
class IcebergDeletionVectorSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("iceberg-deletion-vectors")
  private lazy val java = new JavaPaimon(warehouse)
  private val vectorOptions = Seq("deletion-vectors.enabled" -> "true", "deletion-vectors.bitmap64" -> "true",
    "metadata.iceberg.storage" -> "table-location", "metadata.iceberg.format-version" -> "3")

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def rows(query: String): Seq[Seq[Any]] = sql(query).map(_.toSeq).sortBy(_.mkString(","))
  private def ours(t: String, version: Option[Long] = None): Seq[Seq[Any]] =
    rows(s"SELECT * FROM paimon.default.$t" + version.map(v => s" VERSION AS OF $v").getOrElse(""))

  /** What Iceberg's generic reader gives for the table's current or given snapshot, deletion vectors applied. */
  private def iceberg(t: String, snapshot: Option[Long] = None): Seq[Seq[Any]] =
    IcebergJava.rows(warehouse.resolve(s"default.db/$t").toString, snapshot)

  private def current(t: String): IcebergMetadata = {
    val dir = warehouse.resolve(s"default.db/$t/metadata")
    IcebergMetadata.parse(Files.readString(dir.resolve(s"v${Files.readString(dir.resolve("version-hint.text")).trim}.metadata.json")))
  }
  private def bytes(path: String) = Files.readAllBytes(Path.of(new org.apache.hadoop.fs.Path(path).toUri.getPath))
  private val manifests = new IcebergManifests(Nil, "snappy", legacy = false)
  /** The current snapshot's live delete files: (data file name, record count) each. */
  private def deleteFiles(t: String): Seq[(String, Long)] =
    manifests.readManifestList(bytes(current(t).currentSnapshot.manifestList)).filter(_.content == 1)
      .flatMap(m => manifests.readManifest(bytes(m.path))).filter(_.live).map { e =>
        assert(e.file.content == IcebergDataFile.PositionDeletes && e.file.format == "puffin")
        (new org.apache.hadoop.fs.Path(e.file.deletionVector.get.referencedDataFile).getName, e.file.recordCount)
      }

  private def keyed(t: String, extra: (String, String)*): Unit = {
    val props = ((Seq("primary-key" -> "k", "bucket" -> "1") ++ vectorOptions ++ extra)
      .map { case (k, v) => s"'$k' = '$v'" }).mkString(", ")
    sql(s"CREATE TABLE paimon.default.$t (k INT NOT NULL, v INT) TBLPROPERTIES ($props)")
  }

  test("a primary-key table with deletion vectors reads in Iceberg as ours, at every snapshot") {
    keyed("pk")
    sql("INSERT INTO paimon.default.pk VALUES (1, 1), (2, 2), (3, 3)")
    sql("INSERT INTO paimon.default.pk VALUES (1, 11), (4, 4)")
    sql("DELETE FROM paimon.default.pk WHERE k = 2")
    assert(deleteFiles("pk").nonEmpty, "the update and the delete leave deletion vectors")
    sql("UPDATE paimon.default.pk SET v = 33 WHERE k = 3")
    sql("CALL paimon.sys.compact(table => 'default.pk', compact_strategy => 'full')")
    assert(deleteFiles("pk").isEmpty)
    sql("INSERT INTO paimon.default.pk VALUES (5, 5)")
    val snapshots = current("pk").snapshots.map(_.id)
    assert(snapshots.size >= 5)
    snapshots.foreach(id => assert(iceberg("pk", Some(id)) == ours("pk", Some(id)), s"snapshot $id"))
    assert(iceberg("pk") == Seq(Seq(1, 11), Seq(3, 33), Seq(4, 4), Seq(5, 5)))
  }

  test("an append table's deletion vectors reach Iceberg, and a format version change starts the metadata afresh") {
    sql("CREATE TABLE paimon.default.log (id INT, v STRING, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES (" +
      "'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = 'true', " +
      "'metadata.iceberg.storage' = 'table-location')")
    val error = intercept[Exception](sql("INSERT INTO paimon.default.log VALUES (1, 'a', 'd1')"))
    assert(error.getMessage.contains("metadata.iceberg.format-version"), error.getMessage)
    sql("ALTER TABLE paimon.default.log SET TBLPROPERTIES ('metadata.iceberg.format-version' = '3')")
    sql("INSERT INTO paimon.default.log VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
    sql("DELETE FROM paimon.default.log WHERE id = 2")
    assert(deleteFiles("log").size == 1 && current("log").formatVersion == 3)
    assert(iceberg("log") == ours("log") && ours("log").size == 2)

    sql("CREATE TABLE paimon.default.upgraded (id INT) TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location')")
    sql("INSERT INTO paimon.default.upgraded VALUES (1)")
    sql("INSERT INTO paimon.default.upgraded VALUES (2)")
    assert(current("upgraded").formatVersion == 2 && current("upgraded").snapshots.size == 2)
    sql("ALTER TABLE paimon.default.upgraded SET TBLPROPERTIES ('metadata.iceberg.format-version' = '3')")
    sql("INSERT INTO paimon.default.upgraded VALUES (3)")
    assert(current("upgraded").formatVersion == 3 && current("upgraded").snapshots.map(_.id) == Seq(3L))
    assert(iceberg("upgraded") == Seq(Seq(1), Seq(2), Seq(3)))
  }

  test("Java's and our commits go on from each other's deletion vectors") {
    java.createTable("default.shared", Schema.newBuilder().column("k", DataTypes.INT().notNull())
      .column("v", DataTypes.INT()).primaryKey("k").option("bucket", "1")
      .options(vectorOptions.toMap.asJava).build())
    java.insert("default.shared", Seq(1, 1), Seq(2, 2), Seq(3, 3))
    sql("INSERT INTO paimon.default.shared VALUES (2, 22), (4, 4)")
    assert(iceberg("shared") == ours("shared"))
    java.write("default.shared", Seq(RowKind.DELETE -> Seq(3, 3), RowKind.INSERT -> Seq(5, 5)))
    assert(iceberg("shared") == ours("shared") && ours("shared").size == 4)
    sql("DELETE FROM paimon.default.shared WHERE k = 1")
    assert(iceberg("shared") == ours("shared") && ours("shared").size == 3)
  }

  test("the same statements through Java and through us give the same delete files") {
    Seq("theirs", "mine").foreach(t => java.createTable(s"default.$t", Schema.newBuilder()
      .column("k", DataTypes.INT().notNull()).column("v", DataTypes.INT()).primaryKey("k").option("bucket", "1")
      .options(vectorOptions.toMap.asJava).build()))
    java.insert("default.theirs", Seq(1, 1), Seq(2, 2), Seq(3, 3))
    sql("INSERT INTO paimon.default.mine VALUES (1, 1), (2, 2), (3, 3)")
    java.insert("default.theirs", Seq(1, 11), Seq(4, 4))
    sql("INSERT INTO paimon.default.mine VALUES (1, 11), (4, 4)")
    val (theirs, mine) = (current("theirs"), current("mine"))
    assert(mine.formatVersion == 3 && theirs.formatVersion == 3)
    assert(mine.snapshots.map(s => (s.id, s.operation)) == theirs.snapshots.map(s => (s.id, s.operation)))
    def shape(m: IcebergMetadata) = manifests.readManifestList(bytes(m.currentSnapshot.manifestList))
      .map(x => (x.content, x.addedFiles, x.existingFiles, x.deletedFiles, x.addedRows, x.existingRows)).sorted
    assert(shape(mine) == shape(theirs))
    assert(deleteFiles("mine").map(_._2) == deleteFiles("theirs").map(_._2) && deleteFiles("mine").nonEmpty)
    assert(iceberg("mine") == iceberg("theirs"))
  }
}
