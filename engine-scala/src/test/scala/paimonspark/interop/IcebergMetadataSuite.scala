package paimonspark.interop

import java.nio.file.{Files, Path}

import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.iceberg.{IcebergManifests, IcebergMetadata}
import paimonspark.format.metadata.Json
import paimonspark.spark.LocalSession

/**
 * The Iceberg metadata of tables with `metadata.iceberg.storage` against Paimon's Java core, which writes
 * the same metadata after its own commits: its table goes on under our commits and ours under its (each
 * reads the other's Avro), and the same statements through each give the same metadata.
 */
class IcebergMetadataSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("iceberg-metadata")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def metadataDir(t: String): Path = warehouse.resolve(s"default.db/$t/metadata")
  private def current(t: String): IcebergMetadata = {
    val dir = metadataDir(t)
    IcebergMetadata.parse(Files.readString(dir.resolve(s"v${Files.readString(dir.resolve("version-hint.text")).trim}.metadata.json")))
  }
  private def manifests = new IcebergManifests(Seq(paimonspark.format.DataField(2, "dt",
    paimonspark.format.DataTypes.string)), "snappy", legacy = false)
  private def unpartitioned = new IcebergManifests(Nil, "snappy", legacy = false)
  private def bytes(path: String) = Files.readAllBytes(Path.of(new org.apache.hadoop.fs.Path(path).toUri.getPath))
  /** The rows Iceberg's current snapshot lists as live, by its manifests' record counts. */
  private def icebergRows(t: String, reader: IcebergManifests = manifests): Long =
    reader.readManifestList(bytes(current(t).currentSnapshot.manifestList))
      .flatMap(m => reader.readManifest(bytes(m.path))).filter(_.live).map(_.file.recordCount).sum
  private def count(t: String): Long = sql(s"SELECT count(*) FROM paimon.default.$t").head.getLong(0)

  private def schema: Schema = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
    .column("dt", DataTypes.STRING()).partitionKeys("dt").option("bucket", "-1")
    .option("metadata.iceberg.storage", "table-location").build()

  test("Java's table keeps its Iceberg metadata under our commits, and Java's commits go on from ours") {
    java.createTable("default.shared", schema)
    java.insert("default.shared", Seq(1, "a", "d1"), Seq(2, "b", "d2"))
    sql("INSERT INTO paimon.default.shared VALUES (3, 'c', 'd1')")
    assert(icebergRows("shared") == 3 && current("shared").snapshots.map(_.id) == Seq(1L, 2L))
    sql("DELETE FROM paimon.default.shared WHERE id = 1")
    assert(icebergRows("shared") == count("shared") && current("shared").currentSnapshot.operation == "overwrite")
    java.insert("default.shared", Seq(4, "d", "d3"))
    val after = current("shared")
    assert(after.snapshots.map(_.id) == (1L to after.currentSnapshotId) && icebergRows("shared") == count("shared"))
    sql("CALL paimon.sys.compact(table => 'default.shared')")
    java.insert("default.shared", Seq(5, "e", "d1"))
    assert(icebergRows("shared") == count("shared") && count("shared") == 4)
  }

  test("a primary-key table's Iceberg metadata holds its top level only, under Java's commits and ours alike") {
    java.createTable("default.keyed", Schema.newBuilder().column("id", DataTypes.INT().notNull())
      .column("v", DataTypes.STRING()).primaryKey("id").option("bucket", "1")
      .option("metadata.iceberg.storage", "table-location").build())
    java.insert("default.keyed", Seq(1, "a"), Seq(2, "b"))
    java.insert("default.keyed", Seq(2, "b2"), Seq(3, "c"))
    sql("CALL paimon.sys.compact(table => 'default.keyed', compact_strategy => 'full')")
    assert(icebergRows("keyed", unpartitioned) == 3 && count("keyed") == 3)
    java.insert("default.keyed", Seq(4, "d"))
    assert(icebergRows("keyed", unpartitioned) == 3)
    sql("INSERT INTO paimon.default.keyed VALUES (5, 'e')")
    java.compact("default.keyed")
    assert(icebergRows("keyed", unpartitioned) == 5 && count("keyed") == 5)
  }

  test("a writer killed between its Paimon commit and its Iceberg metadata: the table reads, the next commit repairs") {
    sql("CREATE TABLE paimon.default.crashed (id INT, v STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location')")
    sql("INSERT INTO paimon.default.crashed VALUES (1, 'a', 'd1')")
    StalledIcebergWriter.killAtIcebergMetadata(warehouse, "INSERT INTO paimon.default.crashed VALUES (2, 'b', 'd2')")
    assert(count("crashed") == 2 && current("crashed").currentSnapshotId == 1L)
    assert(!Files.exists(metadataDir("crashed").resolve("v2.metadata.json")))
    val location = warehouse.resolve("default.db/crashed").toString
    assert(IcebergJava.rows(location) == Seq(Seq(1, "a", "d1")))
    sql("INSERT INTO paimon.default.crashed VALUES (3, 'c', 'd1')")
    assert(current("crashed").snapshots.map(_.id) == Seq(3L))
    assert(IcebergJava.rows(location) == Seq(Seq(1, "a", "d1"), Seq(2, "b", "d2"), Seq(3, "c", "d1")))
  }

  test("the same statements through Java and through us give the same Iceberg metadata") {
    java.createTable("default.theirs", schema)
    java.createTable("default.mine", schema)
    java.insert("default.theirs", Seq(1, "a", "d1"), Seq(2, "b", "d2"))
    sql("INSERT INTO paimon.default.mine VALUES (1, 'a', 'd1'), (2, 'b', 'd2')")
    java.insert("default.theirs", Seq(3, "c", "d1"))
    sql("INSERT INTO paimon.default.mine VALUES (3, 'c', 'd1')")
    val (theirs, mine) = (current("theirs"), current("mine"))
    assert(mine.schemas.map(Json.render) == theirs.schemas.map(Json.render))
    assert(mine.specFields.map(Json.render) == theirs.specFields.map(Json.render))
    assert((mine.formatVersion, mine.lastColumnId, mine.lastPartitionId, mine.currentSchemaId, mine.lastSequenceNumber) ==
      (theirs.formatVersion, theirs.lastColumnId, theirs.lastPartitionId, theirs.currentSchemaId, theirs.lastSequenceNumber))
    assert(mine.snapshots.map(s => (s.id, s.parent, s.operation, s.schemaId)) ==
      theirs.snapshots.map(s => (s.id, s.parent, s.operation, s.schemaId)))
    def counts(m: IcebergMetadata) = manifests.readManifestList(bytes(m.currentSnapshot.manifestList))
      .map(x => (x.addedFiles, x.existingFiles, x.deletedFiles, x.addedRows, x.existingRows, x.deletedRows,
        x.partitions.map(p => (p.containsNull, p.lower.map(_.toSeq), p.upper.map(_.toSeq)))))
    assert(counts(mine) == counts(theirs))
    def entries(m: IcebergMetadata) = manifests.readManifestList(bytes(m.currentSnapshot.manifestList))
      .flatMap(x => manifests.readManifest(bytes(x.path))).map(e => (e.status, e.snapshotId, e.sequenceNumber,
        e.file.partition.map(String.valueOf), e.file.recordCount, e.file.nullCounts,
        e.file.lowerBounds.view.mapValues(_.toSeq).toMap, e.file.upperBounds.view.mapValues(_.toSeq).toMap))
    assert(entries(mine).sortBy(_.toString) == entries(theirs).sortBy(_.toString))
  }
}
