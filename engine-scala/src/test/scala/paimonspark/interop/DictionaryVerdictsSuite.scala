package paimonspark.interop

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.parquet.DictionaryVerdicts
import paimonspark.spark.{LocalSession, SparkTable}

/**
 * The write path's shortcut of writing plain the columns whose dictionaries earlier files dropped:
 * the same upserts into twin tables, one with the shortcut and one building every dictionary as
 * Parquet alone does, give the same rows (read by us and by Paimon's Java core), the same encodings
 * column by column, and files of the same size within 1%.
 */
class DictionaryVerdictsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("dictionary-verdicts")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq

  private def dataFiles(table: String): Seq[Path] =
    Files.walk(warehouse.resolve(s"default.db/$table")).iterator().asScala
      .filter(p => p.getFileName.toString.startsWith("data-") && p.toString.endsWith(".parquet")).toSeq

  /** Per column, whether its pages are dictionary-encoded, over all files of a table. */
  private def encodings(table: String): Map[String, Set[Boolean]] =
    dataFiles(table).flatMap { p =>
      val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(p.toUri), new Configuration()))
      try reader.getFooter.getBlocks.asScala.flatMap(_.getColumns.asScala).map(c =>
        c.getPath.toDotString -> !c.getEncodingStats.hasNonDictionaryEncodedPages).toSeq
      finally reader.close()
    }.groupBy(_._1).map { case (c, vs) => c -> vs.map(_._2).toSet }

  test("with and without the shortcut: the same rows for us and Java, the same encodings, the same sizes") {
    val tables = Seq("shortcut", "every_dictionary")
    tables.foreach { t =>
      sql(s"CREATE TABLE paimon.default.$t (k BIGINT, low INT, high DOUBLE, s STRING) TBLPROPERTIES " +
        "('primary-key' = 'k', 'bucket' = '2', 'write-only' = 'true')")
    }
    // 10 batches into 2 buckets: 20 level-0 files, more than a probe's period, so later ones use the verdicts.
    // Values are hashes of the key and batch, not random: both tables get the same rows, run after run.
    def write(t: String): Unit = (0 until 10).foreach { b =>
      sql(s"INSERT INTO paimon.default.$t SELECT (id * 7 + $b * 131) % 6000, CAST(id % 5 AS INT), " +
        s"pmod(xxhash64(id, $b), 1000000007) / 1e3, md5(CAST(xxhash64($b, id) AS STRING)) FROM range(1000)")
    }
    write("shortcut")
    val store = spark.sessionState.catalogManager.catalog("paimon").asInstanceOf[TableCatalog]
      .loadTable(Identifier.of(Array("default"), "shortcut")).asInstanceOf[SparkTable].store
    // Hashed doubles and strings lose their dictionaries; five ints keep theirs.
    assert(DictionaryVerdicts.of(DictionaryVerdicts.kind(store.dataFileSettings.kind, store.schema.id, 0)).plain ==
      Set("high", "s"))
    DictionaryVerdicts.disabledDuring(write("every_dictionary"))
    // The tables hold the same rows, and each reads the same for Java.
    tables.foreach(t => sql(s"CALL paimon.sys.compact(table => 'default.$t')"))
    val ours = tables.map(t => JavaPaimon.sorted(sql(s"SELECT * FROM paimon.default.$t").map(_.toSeq)))
    assert(ours.head == ours.last && ours.head.size == 6000)
    tables.zip(ours).foreach { case (t, rows) => assert(java.rows(s"default.$t") == rows, t) }
    assert(encodings("shortcut") == encodings("every_dictionary"))
    assert(encodings("shortcut")("low") == Set(true) && encodings("shortcut")("high") == Set(false))
    val sizes = tables.map(t => dataFiles(t).map(Files.size).sum)
    assert(math.abs(sizes.head - sizes.last).toDouble / sizes.last < 0.01, sizes)
  }
}
