package paimonspark.interop

import java.math.{BigDecimal => JBigDecimal}
import java.nio.file.Files
import java.sql.{Date => SqlDate, Timestamp => SqlTimestamp}
import java.time.{LocalDateTime, ZoneOffset}
import java.util.{TimeZone, UUID}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HadoopPath}
import org.apache.paimon.catalog.Identifier
import org.apache.paimon.data.{BinaryString, Decimal, GenericArray, GenericMap, GenericRow, Timestamp}
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.{DataType, DataTypes}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CorruptFileException, InvalidOptionException}
import paimonspark.spark.LocalSession

/**
 * Data files in ORC and Avro, as Apache Paimon's Java core writes them (ORC was its default before
 * 1.0, and Flink's tables have both), read here as Java reads them: every column type, merged in
 * primary-key tables, filtered, time travelled, and ORC's timestamps in any JVM time zone.
 */
class FileFormatInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("file-formats")
  private lazy val java = new JavaPaimon(warehouse)
  private lazy val tables = new JavaFeatureTables(java)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(spark.sql(query).collect().toSeq.map(_.toSeq))
  private def asText(query: String): Seq[String] = spark.sql(query).collect().map(_.toSeq.map {
    case bytes: Array[Byte] => bytes.mkString("bytes(", ",", ")")
    case other => String.valueOf(other)
  }.mkString("[", ",", "]")).sorted.toSeq

  test("ORC and Avro files read as Java reads them: filtered, time travelled, merged in a primary-key table") {
    val (append, pk) = (tables.orcAppend(), tables.orcPrimaryKey())
    Seq(append, pk, tables.avroAppend(), tables.avroPrimaryKey()).foreach { t =>
      assert(ours(s"SELECT * FROM paimon.${t.name}") == java.rows(t.name))
      assert(ours(s"SELECT name FROM paimon.${t.name} WHERE id > 6") == java.rows(t.name).filter(_.head.asInstanceOf[Int] > 6)
        .map(_.tail))
      assert(ours(s"SELECT * FROM paimon.${t.name} VERSION AS OF 1") == java.atSnapshot(t.name, 1))
    }
    assert(ours(s"SELECT count(*) FROM paimon.${pk.name}") == Seq(Seq(8L)))
  }

  test("every column type reads from Java's Avro files as from its Parquet files") {
    val avro = typesTable("types_avro", "avro", "Asia/Kathmandu")
    assert(asText(s"SELECT * FROM $avro") == asText(s"SELECT * FROM ${typesTable("types_avro_parquet", "parquet", "UTC")}"))
    assert(asText(s"SELECT m, i FROM $avro WHERE r.a = 2") == Seq("[Map(k2 -> 2),20000]"))
  }

  test("one table of all three formats, after file.format changes, merges its files as Java does") {
    val name = "default.mixed_pk"
    java.createTable(name, Schema.newBuilder().column("id", DataTypes.INT()).column("name", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").option("file.format", "avro").build())
    java.insert(name, (1 to 6).map(i => Seq(i, s"avro-$i")): _*)
    java.alter(name, SchemaChange.setOption("file.format", "orc"))
    java.insert(name, (4 to 9).map(i => Seq(i, s"orc-$i")): _*)
    java.alter(name, SchemaChange.setOption("file.format", "parquet"))
    java.insert(name, (8 to 12).map(i => Seq(i, s"parquet-$i")): _*)
    val formats = ours("SELECT file_format FROM paimon.default.`mixed_pk$files`").map(_.head).toSet
    assert(formats == Set("avro", "orc", "parquet"))
    assert(ours(s"SELECT * FROM paimon.$name") == java.rows(name))
    assert(ours(s"SELECT * FROM paimon.$name VERSION AS OF 2") == java.atSnapshot(name, 2))
  }

  test("an Avro file cut across tasks is read whole, each block once") {
    val name = "default.avro_big"
    java.createTable(name, Schema.newBuilder().column("id", DataTypes.INT()).column("name", DataTypes.STRING())
      .option("file.format", "avro").build())
    // Names that do not compress: the file holds many Avro blocks.
    java.insert(name, (1 to 8000).map(i => Seq(i, UUID.nameUUIDFromBytes(BigInt(i).toByteArray).toString)): _*)
    val cut = spark.read.options(Map("source.split.target-size" -> "16 kb", "source.split.open-file-cost" -> "1 kb"))
      .table(s"paimon.$name")
    val size = ours("SELECT file_size_in_bytes FROM paimon.default.`avro_big$files`")
    assert(cut.rdd.getNumPartitions >= 4, s"files of $size bytes")
    assert(cut.selectExpr("count(*)", "count(DISTINCT id)", "sum(id)").collect().head.toSeq == Seq(8000L, 8000L,
      (1 to 8000).map(_.toLong).sum))
  }

  /** A value as Java's reader gives it (JavaPaimon.plain): dates as epoch days, instants as UTC wall clocks. */
  private def asJavaGives(v: Any): Any = v match {
    case d: SqlDate => d.toLocalDate.toEpochDay.toInt
    case t: SqlTimestamp => LocalDateTime.ofInstant(t.toInstant, ZoneOffset.UTC)
    case other => other
  }

  /** Our table `name`'s rows at every snapshot equal Java's, and its data files are of `formats`. */
  private def javaReadsEverySnapshot(name: String, formats: Set[String]): Unit = {
    val ids = java.snapshotIds(s"default.$name")
    assert(ids.nonEmpty)
    ids.foreach { id =>
      val mine = JavaPaimon.sorted(ours(s"SELECT * FROM paimon.default.$name VERSION AS OF $id").map(_.map(asJavaGives)))
      val theirs = java.atSnapshot(s"default.$name", id)
      assert(theirs == mine, s"$name at snapshot $id: Java's ${theirs.diff(mine).take(3)}, ours ${mine.diff(theirs).take(3)}")
    }
    assert(ours(s"SELECT DISTINCT file_format FROM paimon.default.`$name$$files`").map(_.head).toSet == formats, name)
  }

  private val flat = "id INT, name STRING, price DECIMAL(10, 2), day DATE, at TIMESTAMP_NTZ, seen TIMESTAMP, n BIGINT, ok BOOLEAN"

  /** The same writes into `table` (a primary-key table unless `append`): two inserts, and an update, a delete and a compaction. */
  private def written(table: String, append: Boolean): Unit = {
    val rows = "SELECT CAST(id AS INT), concat('n', id), CAST(id * 1.25 AS DECIMAL(10, 2)), date_add(DATE '2024-01-01', " +
      "CAST(id AS INT)), TIMESTAMP_NTZ '2024-01-01 10:00:00' + make_interval(0, 0, 0, 0, 0, 0, id), " +
      "TIMESTAMP '2024-01-01 10:00:00.123456' + make_interval(0, 0, 0, 0, 0, id), IF(id % 3 = 0, NULL, id * 7), id % 2 = 0 "
    val t = s"paimon.default.$table"
    spark.sql(s"INSERT INTO $t $rows FROM range(1, 40)")
    spark.sql(s"INSERT INTO $t $rows FROM range(30, 60)")
    if (!append) {
      spark.sql(s"UPDATE $t SET name = 'updated' WHERE id % 5 = 0")
      spark.sql(s"DELETE FROM $t WHERE id % 7 = 0")
      spark.sql(s"CALL paimon.sys.compact(table => 'default.$table')")
    }
  }

  private def stats(table: String) = ours(s"SELECT level, record_count, null_value_counts, min_value_stats, " +
    s"max_value_stats FROM paimon.default.`$table$$files`")

  /** The manifest statistics of those writes in Parquet, written once for both formats. */
  private lazy val parquetStats = {
    spark.sql(s"CREATE TABLE paimon.default.ours_parquet ($flat) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    written("ours_parquet", append = false)
    stats("ours_parquet")
  }

  Seq("orc", "avro").foreach { format =>
    test(s"$format: tables we write are read by Java at every snapshot, with the stats Parquet files get") {
      spark.sql(s"CREATE TABLE paimon.default.ours_${format}_append ($flat) TBLPROPERTIES ('file.format' = '$format')")
      spark.sql(s"CREATE TABLE paimon.default.ours_${format}_pk ($flat) TBLPROPERTIES ('file.format' = '$format', " +
        "'primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = 'lookup')")
      written(s"ours_${format}_append", append = true)
      written(s"ours_${format}_pk", append = false)
      javaReadsEverySnapshot(s"ours_${format}_append", Set(format))
      javaReadsEverySnapshot(s"ours_${format}_pk", Set(format))
      // The same rows in Parquet: the manifests hold the same statistics (bounds, null counts).
      assert(stats(s"ours_${format}_pk") == parquetStats)
      // Lookup changelog files too are in the table's format.
      assert(Files.list(warehouse.resolve(s"default.db/ours_${format}_pk/bucket-0")).iterator().asScala
        .map(_.getFileName.toString).filter(_.startsWith("changelog-")).forall(_.endsWith(s".$format")))
    }
  }

  test("a stream of a table in ORC and Avro reads its state, merged across formats, then its changelog") {
    spark.sql("CREATE TABLE paimon.default.streamed (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '1', 'file.format' = 'orc', 'file.format.per.level' = '0:avro', 'changelog-producer' = 'input')")
    // Two overlapping level-0 files, merged by the compaction into an ORC file; a file alone would move up as it is.
    spark.sql("INSERT INTO paimon.default.streamed VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO paimon.default.streamed VALUES (2, 'bb'), (5, 'e')")
    spark.sql("CALL paimon.sys.compact(table => 'default.streamed')")
    spark.sql("INSERT INTO paimon.default.streamed VALUES (2, 'b2'), (3, 'c')")
    val query = spark.readStream.table("paimon.default.streamed").writeStream.format("memory").queryName("streamed_sink")
      .start()
    try {
      query.processAllAvailable()
      assert(ours("SELECT * FROM streamed_sink") == Seq(Seq(1, "a"), Seq(2, "b2"), Seq(3, "c"), Seq(5, "e")))
      spark.sql("INSERT INTO paimon.default.streamed VALUES (4, 'd')")
      query.processAllAvailable()
      assert(ours("SELECT * FROM streamed_sink") == Seq(Seq(1, "a"), Seq(2, "b2"), Seq(3, "c"), Seq(4, "d"), Seq(5, "e")))
    } finally query.stop()
    assert(ours("SELECT DISTINCT file_format FROM paimon.default.`streamed$files`").map(_.head).toSet == Set("avro", "orc"))
  }

  test("levels in their own formats and codecs, changelog files in theirs: Java reads each file") {
    spark.sql("CREATE TABLE paimon.default.ours_levels (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', " +
      "'bucket' = '1', 'file.format.per.level' = '0:avro,5:orc', 'file.compression.per.level' = '5:snappy', " +
      "'changelog-producer' = 'input', 'changelog-file.format' = 'orc', 'changelog-file.compression' = 'lz4')")
    spark.sql("INSERT INTO paimon.default.ours_levels SELECT CAST(id AS INT), concat('v', id) FROM range(100)")
    spark.sql("INSERT INTO paimon.default.ours_levels SELECT CAST(id AS INT), concat('w', id) FROM range(50, 150)")
    val bucket = warehouse.resolve("default.db/ours_levels/bucket-0")
    def names = Files.list(bucket).iterator().asScala.map(_.getFileName.toString).toSeq
    assert(names.filter(_.startsWith("data-")).forall(_.endsWith(".avro")), names)
    assert(names.filter(_.startsWith("changelog-")).forall(_.endsWith(".orc")) && names.exists(_.startsWith("changelog-")))
    spark.sql("CALL paimon.sys.compact(table => 'default.ours_levels', compact_strategy => 'full')")
    javaReadsEverySnapshot("ours_levels", Set("orc"))
    // Six levels (Paimon's default): a full compaction writes the last.
    assert(ours("SELECT level FROM paimon.default.`ours_levels$files`") == Seq(Seq(5)))
    val e = intercept[Exception](spark.sql("ALTER TABLE paimon.default.ours_levels SET TBLPROPERTIES " +
      "('file.format.per.level' = '0:avro', 'file.compression.per.level' = '0:lz4')"))
    assert(e.getMessage.contains("avro files are not written with 'lz4'"), e.getMessage)
  }

  test("ORC timestamps whose column type changed since are turned into wall clocks, then cast") {
    spark.sql("CREATE TABLE paimon.default.orc_evolved (id INT, at TIMESTAMP_NTZ) TBLPROPERTIES ('file.format' = 'orc')")
    spark.sql("INSERT INTO paimon.default.orc_evolved VALUES (1, TIMESTAMP_NTZ '2024-03-01 12:34:56.5')")
    spark.sql("ALTER TABLE paimon.default.orc_evolved ALTER COLUMN at TYPE STRING")
    assert(inZone("America/Los_Angeles")(ours("SELECT * FROM paimon.default.orc_evolved")) ==
      Seq(Seq(1, "2024-03-01 12:34:56.5")))
  }

  test("statistics modes per column (fields.<f>.stats-mode) are written as Paimon's dense stats, and Java sees them") {
    spark.sql("CREATE TABLE paimon.default.field_stats (id INT, name STRING, note STRING, n BIGINT) TBLPROPERTIES " +
      "('file.format' = 'avro', 'metadata.stats-mode' = 'none', 'fields.id.stats-mode' = 'full', " +
      "'fields.name.stats-mode' = 'truncate(2)')")
    spark.sql("INSERT INTO paimon.default.field_stats VALUES (3, 'carol', 'x', 1), (1, 'alice', NULL, 2), (2, 'bob', 'y', 3)")
    val columns = "min_value_stats, max_value_stats, null_value_counts"
    val mine = ours(s"SELECT $columns FROM paimon.default.`field_stats$$files`")
    // Only id and name keep statistics; the $files table shows the others as unknown.
    assert(mine == Seq(Seq("{id=1, n=null, name=al, note=null}", "{id=3, n=null, name=cb, note=null}",
      "{id=0, n=null, name=0, note=null}")), mine)
    val javaColumns = java.catalog.getTable(Identifier.fromString("default.field_stats$files")).rowType().getFieldNames
    val picked = Seq("min_value_stats", "max_value_stats", "null_value_counts").map(javaColumns.indexOf)
    assert(java.rows("default.field_stats$files").map(r => picked.map(i => String.valueOf(r(i)))) == mine)
    assert(java.rows("default.field_stats") == ours("SELECT * FROM paimon.default.field_stats"))
    val e = intercept[InvalidOptionException](spark.sql("ALTER TABLE paimon.default.field_stats SET TBLPROPERTIES " +
      "('fields.note.stats-mode' = 'sometimes')"))
    assert(e.option == "fields.note.stats-mode", e.getMessage)
  }

  /** Per Parquet file of a table: its row groups, and per column its codec, dictionary use, bloom filter and pages. */
  private def parquetLayout(table: String): Seq[(Int, Map[String, (String, Boolean, Boolean, Int)])] =
    Files.walk(warehouse.resolve(s"default.db/$table")).iterator().asScala
      .filter(p => p.getFileName.toString.startsWith("data-") && p.toString.endsWith(".parquet")).toSeq.map { p =>
        val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new HadoopPath(p.toUri), new Configuration()))
        try {
          val blocks = reader.getFooter.getBlocks.asScala
          blocks.size -> blocks.head.getColumns.asScala.map { c =>
            c.getPath.toDotString -> (c.getCodec.name, !c.getEncodingStats.hasNonDictionaryEncodedPages,
              c.getBloomFilterOffset >= 0, reader.readOffsetIndex(c).getPageCount)
          }.toMap
        } finally reader.close()
      }

  test("parquet.* options shape the files as Paimon's Parquet writer does, and Java reads them") {
    val columns = "(k BIGINT, low INT, s STRING)"
    spark.sql(s"CREATE TABLE paimon.default.parquet_defaults $columns")
    spark.sql(s"CREATE TABLE paimon.default.parquet_tuned $columns TBLPROPERTIES ('parquet.block.size' = '65536', " +
      "'parquet.page.row.count.limit' = '500', 'parquet.enable.dictionary' = 'false', " +
      "'parquet.enable.dictionary#low' = 'true', 'parquet.bloom.filter.enabled#k' = 'true', " +
      "'parquet.compression' = 'snappy')")
    Seq("parquet_defaults", "parquet_tuned").foreach { t =>
      spark.sql(s"INSERT INTO paimon.default.$t SELECT id, CAST(id % 5 AS INT), sha2(CAST(id AS STRING), 256) " +
        "FROM range(5000)")
    }
    val Seq((groups, plain)) = parquetLayout("parquet_defaults")
    assert(groups == 1 && plain("low") == (("ZSTD", true, false, 1)) && plain("s")._1 == "ZSTD", plain)
    val tuned = parquetLayout("parquet_tuned")
    assert(tuned.size == 1 && tuned.head._1 > 1, tuned)
    val firstGroup = tuned.head._2
    assert(firstGroup("low")._1 == "SNAPPY" && firstGroup("low")._2 && !firstGroup("s")._2 && !firstGroup("k")._2, firstGroup)
    assert(firstGroup("k")._3 && !firstGroup("s")._3 && firstGroup("k")._4 > 1, firstGroup)
    assert(java.rows("default.parquet_tuned") == ours("SELECT * FROM paimon.default.parquet_tuned"))
    assert(ours("SELECT count(*), count(DISTINCT s) FROM paimon.default.parquet_tuned") == Seq(Seq(5000L, 5000L)))
    val e = intercept[InvalidOptionException](spark.sql("ALTER TABLE paimon.default.parquet_tuned SET TBLPROPERTIES " +
      "('parquet.enable.dictionary' = 'no')"))
    assert(e.option == "parquet.enable.dictionary", e.getMessage)
  }

  test("a damaged data file, or one of another format than its name, is named; an unknown file.format is refused") {
    Seq("orc", "avro", "parquet").foreach { format =>
      val t = s"damaged_$format"
      spark.sql(s"CREATE TABLE paimon.default.$t (id INT, v STRING) TBLPROPERTIES ('file.format' = '$format')")
      spark.sql(s"INSERT INTO paimon.default.$t VALUES (1, 'a'), (2, 'b')")
      val file = Files.list(warehouse.resolve(s"default.db/$t/bucket-0")).iterator().asScala.next()
      // Another format's bytes under this format's name.
      val other = if (format == "parquet") "ORC" else "PAR1"
      Files.write(file, (other + "not really a data file" * 20).getBytes("UTF-8"))
      val e = intercept[Throwable](spark.sql(s"SELECT * FROM paimon.default.$t").collect())
      val named = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case c: CorruptFileException => c }
      assert(named.exists(_.file.endsWith(file.getFileName.toString)), e)
      assert(named.get.getMessage.contains(s"not ${format.toUpperCase.replace("PARQUET", "Parquet").replace("AVRO", "Avro")}"),
        named.get.getMessage)
    }
    val e = intercept[InvalidOptionException](spark.sql("CREATE TABLE paimon.default.lance (id INT) TBLPROPERTIES " +
      "('file.format' = 'lance')"))
    assert(e.option == "file.format" && e.getMessage.contains("avro or orc or parquet"), e.getMessage)
    assert(!Files.exists(warehouse.resolve("default.db/lance")))
  }

  private val types: Seq[(String, DataType)] = Seq("ti" -> DataTypes.TINYINT(), "si" -> DataTypes.SMALLINT(),
    "i" -> DataTypes.INT(), "bi" -> DataTypes.BIGINT(), "f" -> DataTypes.FLOAT(), "d" -> DataTypes.DOUBLE(),
    "b" -> DataTypes.BOOLEAN(), "dec" -> DataTypes.DECIMAL(10, 2), "wide" -> DataTypes.DECIMAL(30, 5),
    "s" -> DataTypes.STRING(), "c" -> DataTypes.CHAR(3), "vc" -> DataTypes.VARCHAR(8), "bin" -> DataTypes.BYTES(),
    "day" -> DataTypes.DATE(), "ts3" -> DataTypes.TIMESTAMP(3), "ts6" -> DataTypes.TIMESTAMP(6),
    "ltz" -> DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6), "arr" -> DataTypes.ARRAY(DataTypes.INT()),
    "m" -> DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()),
    "r" -> DataTypes.ROW(DataTypes.FIELD(100, "a", DataTypes.INT()), DataTypes.FIELD(101, "t", DataTypes.TIMESTAMP(6))),
    "tss" -> DataTypes.ARRAY(DataTypes.TIMESTAMP(6)))

  private def row(n: Int): Seq[Any] = Seq(n.toByte, (n * 100).toShort, n * 10000, n * 1000000000L, n + 0.5f, n + 0.25,
    n % 2 == 0, Decimal.fromBigDecimal(new JBigDecimal(s"$n.25"), 10, 2),
    Decimal.fromBigDecimal(new JBigDecimal(s"12345678901234567890.0000$n"), 30, 5), s"text-$n", "abc", s"v$n",
    Array[Byte](n.toByte, 7), 19000 + n, Timestamp.fromMicros(1700000000123000L + n * 1000L),
    Timestamp.fromMicros(1700000000123456L + n), Timestamp.fromMicros(1700000000654321L + n),
    new GenericArray(Array[AnyRef](Int.box(n), null)),
    new GenericMap(Map[AnyRef, AnyRef](BinaryString.fromString(s"k$n") -> Int.box(n)).asJava),
    GenericRow.of(Int.box(n), Timestamp.fromMicros(1600000000000001L + n)),
    new GenericArray(Array[AnyRef](Timestamp.fromMicros(1500000000000002L + n), null)))

  /** A table of every type in `format`, written by Java with its JVM in `zone`: two rows and one of nulls. */
  private def typesTable(name: String, format: String, zone: String, options: (String, String)*): String = {
    val schema = Schema.newBuilder()
    types.foreach { case (column, dataType) => schema.column(column, dataType) }
    (("file.format" -> format) +: options).foreach { case (k, v) => schema.option(k, v) }
    inZone(zone) {
      java.createTable(s"default.$name", schema.build())
      java.insert(s"default.$name", row(1), row(2), Seq.fill(types.size)(null))
    }
    s"paimon.default.$name"
  }

  /** `body` with this JVM's default time zone (which ORC's writers and readers take) set to `zone`. */
  private def inZone[A](zone: String)(body: => A): A = {
    val before = TimeZone.getDefault
    TimeZone.setDefault(TimeZone.getTimeZone(zone))
    try body finally TimeZone.setDefault(before)
  }

  test("every column type reads from Java's ORC files as from its Parquet files, in any JVM time zone") {
    val parquet = typesTable("types_parquet", "parquet", "UTC")
    // Rows as text in `zone` (java.sql.Timestamp prints in the JVM's zone), without the TIMESTAMP_LTZ column.
    val columns = types.map(_._1).filterNot(_ == "ltz").mkString(", ")
    def read(table: String, zone: String) = inZone(zone)(asText(s"SELECT $columns FROM $table"))
    assert(read(parquet, "UTC").size == 3)
    // Written in one zone, read in another: ORC timestamps are wall clocks moved between the two.
    val orc = typesTable("types_orc", "orc", "Asia/Kathmandu")
    Seq("UTC", "America/Los_Angeles").foreach(zone => assert(read(orc, zone) == read(parquet, zone), zone))
    val filtered = s"SELECT i FROM $orc WHERE ts6 > TIMESTAMP_NTZ '2023-11-14 22:13:20.123457' AND r.t IS NOT NULL"
    assert(inZone("America/Los_Angeles")(asText(filtered)) == Seq("[20000]"))
    // Top-level columns alone are read in batches; a nested one makes the read go row by row.
    val flat = "SELECT i, ts3, ts6, day, dec FROM "
    assert(inZone("America/Los_Angeles")(asText(flat + orc)) == asText(flat + parquet))
    // Paimon's legacy TIMESTAMP_LTZ layout (its default) holds the instant's UTC wall clock taken in the writer's
    // zone: Java's reader gives the instant back in the writer's zone only, and we give what it gives in any zone.
    val legacy = inZone("Asia/Kathmandu") {
      java.createTable("default.ltz_orc", Schema.newBuilder().column("i", DataTypes.INT())
        .column("ltz", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)).option("file.format", "orc").build())
      java.insert("default.ltz_orc", Seq(1, Timestamp.fromMicros(1700000000654321L)), Seq(2, null))
      "paimon.default.ltz_orc"
    }
    def ltz(zone: String) = inZone(zone)(ours(s"SELECT i, unix_micros(ltz) FROM $legacy"))
    def javaLtz(zone: String) = inZone(zone)(java.rows("default.ltz_orc").map(r =>
      Seq(r.head, Option(r(1)).map { case t: LocalDateTime =>
      t.toEpochSecond(ZoneOffset.UTC) * 1000000L + t.getNano / 1000: Any }.orNull)))
    assert(ltz("Asia/Kathmandu") == Seq(Seq(1, 1700000000654321L), Seq(2, null)))
    Seq("Asia/Kathmandu", "UTC").foreach(zone => assert(ltz(zone) == javaLtz(zone), zone))
    // Without it, ORC holds the instant itself: the same in every zone.
    val instants = typesTable("types_orc_ltz", "orc", "Asia/Kathmandu", "orc.timestamp-ltz.legacy.type" -> "false")
    def all(table: String, zone: String) = inZone(zone)(asText(s"SELECT * FROM $table"))
    assert(all(instants, "America/Los_Angeles") == all(parquet, "America/Los_Angeles"))
  }
}
