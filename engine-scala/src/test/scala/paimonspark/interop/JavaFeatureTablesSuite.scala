package paimonspark.interop

import java.net.URI
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import org.apache.paimon.manifest.{IndexManifestEntry, ManifestEntry}

/**
 * The tables of [[JavaFeatureTables]] really have their feature: each is checked in its manifests,
 * index manifest or files, and read back by Java's own batch reader, whose row count the test
 * reports.
 */
class JavaFeatureTablesSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val warehouse = Files.createTempDirectory("java-feature-tables")
  private lazy val java = new JavaPaimon(warehouse)
  private lazy val tables = new JavaFeatureTables(java)

  override def afterAll(): Unit = java.close()

  /** Java's rows of the table, after checking their number against the one the fixture expects. */
  private def javaRows(table: FeatureTable): Seq[Seq[Any]] = {
    val rows = java.rows(table.name)
    assert(rows.size == table.javaRowCount)
    info(s"Java reads ${rows.size} rows of ${table.name}")
    rows
  }

  /** The data files of the latest snapshot, as its manifests list them. */
  private def liveFiles(table: FeatureTable): Seq[ManifestEntry] =
    java.table(table.name).store().newScan().plan().files().asScala.toSeq

  /** The entries of the latest snapshot's index manifest. */
  private def indexEntries(table: FeatureTable): Seq[IndexManifestEntry] = {
    val t = java.table(table.name)
    val indexManifest = t.snapshotManager().latestSnapshot().indexManifest()
    assert(indexManifest != null, s"${table.name}: the latest snapshot has no index manifest")
    t.store().newIndexFileHandler().readManifest(indexManifest).asScala.toSeq
  }

  /** Paths of the table's files relative to its directory. */
  private def files(table: FeatureTable): Set[String] = java.layout(table.name).keySet

  /** The index manifest's deletion-vector entries, each checked to be a file in `index/` over live data files. */
  private def deletionVectors(table: FeatureTable): Seq[IndexManifestEntry] = {
    val vectors = indexEntries(table).filter(_.indexFile().indexType() == "DELETION_VECTORS")
    val dataFiles = liveFiles(table).map(_.file().fileName()).toSet
    assert(vectors.nonEmpty)
    vectors.foreach { entry =>
      assert(files(table)(s"index/${entry.indexFile().fileName()}"))
      assert(entry.indexFile().dvRanges().keySet().asScala.forall(dataFiles))
    }
    vectors
  }

  test("dv_append: an append table whose deleted rows are marked in DELETION_VECTORS index files") {
    val table = tables.dvAppend()
    val marked = deletionVectors(table).flatMap(_.indexFile().dvRanges().values().asScala)
      .map(_.cardinality().longValue).sum
    assert(liveFiles(table).map(_.file().rowCount()).sum - marked == table.javaRowCount)
    info(s"1200 rows written, $marked marked deleted")
    assert(javaRows(table).map(_.head.asInstanceOf[Int]).sorted == (0 until 1200).filter(_ % 3 != 0))
  }

  test("dv_pk: a primary-key table whose compaction left DELETION_VECTORS index files") {
    val table = tables.dvPrimaryKey()
    info(s"${deletionVectors(table).size} deletion-vector index files")
    val rows = javaRows(table)
    assert(rows.filter(_.head.asInstanceOf[Int] <= 10).map(_(1)).forall(_.toString.startsWith("upserted-")))
    assert(!rows.exists(_.head == 100))
  }

  Seq("orc_append" -> (() => tables.orcAppend()), "orc_pk" -> (() => tables.orcPrimaryKey()),
    "avro_append" -> (() => tables.avroAppend())).foreach { case (name, make) =>
    test(s"$name: data files in the table's file.format") {
      val table = make()
      val format = name.takeWhile(_ != '_')
      assert(liveFiles(table).nonEmpty && liveFiles(table).forall(_.file().fileName().endsWith(s".$format")))
      javaRows(table)
    }
  }

  test("external_paths: data files outside the table directory, their path in _EXTERNAL_PATH") {
    val dir = Files.createTempDirectory("java-feature-tables-external")
    val table = tables.externalPaths(dir)
    val outside = Files.walk(dir).iterator().asScala.filter(Files.isRegularFile(_)).map(_.toUri.getPath).toSet
    liveFiles(table).foreach { entry =>
      val path = entry.file().externalPath()
      assert(path.isPresent && outside(new URI(path.get).getPath), path)
    }
    assert(!files(table).exists(_.contains("bucket-")))
    javaRows(table)
  }

  test("row_tracking: data files carry the row id of their first row") {
    val table = tables.rowTracking()
    assert(liveFiles(table).map(_.file().firstRowId()).sortBy(_.longValue) == Seq(0L, 3L))
    javaRows(table)
  }

  test("data_evolution: a file holding only some columns, merged by row id") {
    val table = tables.dataEvolution()
    val writeCols = liveFiles(table).map(e => Option(e.file().writeCols()).map(_.asScala.toSeq))
    assert(writeCols.contains(Some(Seq("note"))) && writeCols.size == 2)
    assert(javaRows(table) == (1 to 3).map(i => Seq(i, s"row-$i", s"rewritten-$i")))
  }

  test("blob_table: a BLOB column stored in .blob files") {
    val table = tables.blobTable()
    assert(liveFiles(table).exists(_.file().fileName().endsWith(".blob")))
    assert(javaRows(table).map(row => new String(row(2).asInstanceOf[Array[Byte]])) == Seq("picture-1", "picture-2"))
  }

  test("variant_table: a VARIANT column") {
    val table = tables.variantTable()
    assert(java.table(table.name).rowType().getField("payload").`type`().toString == "VARIANT")
    assert(javaRows(table).map(_(1)) == tables.variantJson)
  }

  test("postpone_pk: data files in bucket-postpone, which Java's batch read skips") {
    val table = tables.postponePrimaryKey()
    assert(liveFiles(table).nonEmpty && liveFiles(table).forall(_.bucket() == -2))
    assert(files(table).exists(_.startsWith("bucket-postpone/")) && !files(table).exists(_.startsWith("bucket-0/")))
    javaRows(table)
  }

  test("mod_bucket: each key in bucket floorMod(id, 4)") {
    val table = tables.modBucket()
    liveFiles(table).foreach { entry =>
      Seq(entry.file().minKey(), entry.file().maxKey()).foreach(key =>
        assert(Math.floorMod(key.getInt(0), 4) == entry.bucket()))
    }
    assert(liveFiles(table).map(_.bucket()).toSet == tables.modBucketIds.map(Math.floorMod(_, 4)).toSet)
    javaRows(table)
  }

  test("unknown_index: a btree global index entry in the index manifest") {
    val table = tables.unknownIndex()
    val btree = indexEntries(table).filter(_.indexFile().indexType() == "btree")
    assert(btree.nonEmpty && btree.forall(_.indexFile().globalIndexMeta() != null))
    assert(btree.forall(e => files(table)(s"index/${e.indexFile().fileName()}")))
    javaRows(table)
  }
}
