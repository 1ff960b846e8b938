package paimonspark.interop

import java.math.{BigDecimal => JBigDecimal}
import java.nio.file.{Files, Path, StandardCopyOption}
import java.time.{Instant, LocalDateTime, ZoneOffset}

import scala.jdk.CollectionConverters._

import org.apache.avro.file.DataFileReader
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HadoopPath}
import org.apache.orc.{OrcFile, TypeDescription}
import org.apache.paimon.data.{BinaryString, Decimal, GenericArray, GenericMap, GenericRow, InternalArray, InternalMap,
  InternalRow => PaimonRow, Timestamp}
import org.apache.paimon.schema.Schema
import org.apache.paimon.types.{ArrayType => PArrayType, DataType, DataTypes, MapType => PMapType, MultisetType => PMultiset,
  RowType => PRowType}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.Row
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CorruptFileException, UnsupportedFeatureException}
import paimonspark.spark.LocalSession

/**
 * Every type in every file format, as Paimon's own writers encode them: a data file we write into a
 * table Java created has, node for node, the physical schema of Java's file of the same table (types,
 * annotations, units, field ids), Java reads our rows exactly as it reads its own, and we read its
 * rows as they were written. Timestamps are taken at every precision (Paimon's readers decode a
 * Parquet column by the precision declared, whatever the file's annotation), before 1970 and before
 * the Gregorian calendar, and inside arrays, maps and rows.
 */
class PhysicalEncodingSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = {
    val dir = Files.createTempDirectory("physical-encoding")
    (LocalSession.onWarehouse("physical-encoding", dir.toString, "spark.sql.session.timeZone" -> "UTC",
      "spark.sql.datetime.java8API.enabled" -> "true"), dir)
  }
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  /** Columns, each with its Java value, its Spark SQL literal (values at the column's precision) and its plain value. */
  private final case class Column(name: String, javaType: DataType, cells: Seq[(AnyRef, String)])

  private def ntz(text: String): (AnyRef, String) =
    (Timestamp.fromLocalDateTime(LocalDateTime.parse(text.replace(' ', 'T'))), s"TIMESTAMP_NTZ '$text'")
  private def ltz(text: String): (AnyRef, String) =
    (Timestamp.fromLocalDateTime(LocalDateTime.parse(text.replace(' ', 'T'))), s"TIMESTAMP '$text'")
  private def decimal(text: String, p: Int, s: Int): (AnyRef, String) =
    (Decimal.fromBigDecimal(new JBigDecimal(text), p, s), s"CAST('$text' AS DECIMAL($p, $s))")
  private def string(text: String): (AnyRef, String) = (BinaryString.fromString(text), s"'$text'")
  private def bytes(hex: String): (AnyRef, String) =
    (hex.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray, s"X'$hex'")
  private val Null: (AnyRef, String) = (null, "NULL")

  private def timestamps(name: String, precision: Int, ltzType: Boolean, values: String*) = Column(name,
    if (ltzType) DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(precision) else DataTypes.TIMESTAMP(precision),
    values.map(v => if (ltzType) ltz(v) else ntz(v)) :+ Null)

  private val atomic: Seq[Column] = Seq(
    timestamps("ts0", 0, ltzType = false, "2024-02-29 23:59:58", "1969-12-31 23:59:59"),
    timestamps("ts3", 3, ltzType = false, "2024-02-29 23:59:58.123", "1500-06-30 12:00:00.001"),
    timestamps("ts6", 6, ltzType = false, "2024-02-29 23:59:58.123456", "1582-10-04 23:59:59.999999"),
    timestamps("ts9", 9, ltzType = false, "2024-02-29 23:59:58.123456", "1969-12-31 23:59:59.999999"),
    timestamps("ltz3", 3, ltzType = true, "2024-02-29 23:59:58.123", "1969-12-31 23:59:59.999"),
    timestamps("ltz6", 6, ltzType = true, "2024-02-29 23:59:58.123456", "0001-01-01 00:00:00.000001"),
    timestamps("ltz9", 9, ltzType = true, "2024-02-29 23:59:58.654321", "1900-01-01 00:00:00.5"),
    Column("t", DataTypes.TIME(), Seq((Int.box(45296000), "45296000"), (Int.box(0), "0"), Null)),
    Column("ti", DataTypes.TINYINT(), Seq((Byte.box(-7), "CAST(-7 AS TINYINT)"), (Byte.box(127), "CAST(127 AS TINYINT)"), Null)),
    Column("si", DataTypes.SMALLINT(), Seq((Short.box(300), "CAST(300 AS SMALLINT)"), (Short.box(-1), "CAST(-1 AS SMALLINT)"), Null)),
    Column("dec9", DataTypes.DECIMAL(9, 2), Seq(decimal("1234567.89", 9, 2), decimal("-0.01", 9, 2), Null)),
    Column("dec18", DataTypes.DECIMAL(18, 4), Seq(decimal("12345678901234.5678", 18, 4), decimal("-1.0000", 18, 4), Null)),
    Column("dec38", DataTypes.DECIMAL(38, 10), Seq(decimal("1234567890123456789012345678.1234567890", 38, 10),
      decimal("-0.0000000001", 38, 10), Null)),
    Column("c", DataTypes.CHAR(4), Seq(string("abcd"), string("wxyz"), Null)),
    Column("vc", DataTypes.VARCHAR(10), Seq(string("hello"), string(""), Null)),
    Column("bin", DataTypes.BINARY(4), Seq(bytes("01020304"), bytes("FFFEFDFC"), Null)),
    Column("vbin", DataTypes.VARBINARY(8), Seq(bytes("0506"), bytes(""), Null)))

  private val nested: Seq[Column] = Seq(
    Column("arr", DataTypes.ARRAY(DataTypes.TIMESTAMP(3)), Seq(
      (new GenericArray(Array[AnyRef](ntz("2024-01-01 00:00:01.501")._1, null)),
        "array(TIMESTAMP_NTZ '2024-01-01 00:00:01.501', NULL)"),
      (new GenericArray(Array[AnyRef]()), "CAST(array() AS ARRAY<TIMESTAMP_NTZ>)"), Null)),
    Column("r", DataTypes.ROW(DataTypes.FIELD(100, "t9", DataTypes.TIMESTAMP(9)), DataTypes.FIELD(101, "t3", DataTypes.TIMESTAMP(3))),
      Seq((GenericRow.of(ntz("1969-12-31 23:59:59.999999")._1, ntz("1500-01-01 00:00:00.001")._1),
        "named_struct('t9', TIMESTAMP_NTZ '1969-12-31 23:59:59.999999', 't3', TIMESTAMP_NTZ '1500-01-01 00:00:00.001')"),
        (GenericRow.of(null, null), "named_struct('t9', CAST(NULL AS TIMESTAMP_NTZ), 't3', CAST(NULL AS TIMESTAMP_NTZ))"), Null)),
    Column("m", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.TIMESTAMP(3)), Seq(
      (new GenericMap(Map[AnyRef, AnyRef](Int.box(1) -> ntz("2024-01-01 00:00:01.501")._1).asJava),
        "map(1, TIMESTAMP_NTZ '2024-01-01 00:00:01.501')"),
      (new GenericMap(Map[AnyRef, AnyRef](Int.box(2) -> null).asJava), "map(2, CAST(NULL AS TIMESTAMP_NTZ))"), Null)))

  private val multiset = Column("ms", DataTypes.MULTISET(DataTypes.STRING()), Seq(
    (new GenericMap(Map[AnyRef, AnyRef](BinaryString.fromString("x") -> Int.box(2)).asJava), "map('x', 2)"),
    (new GenericMap(Map.empty[AnyRef, AnyRef].asJava), "CAST(map() AS MAP<STRING, INT>)"), Null))

  /** Avro files hold no timestamps beyond 6 digits and no multisets, in Paimon as here. */
  private def columns(format: String): Seq[Column] = format match {
    case "avro" => (atomic ++ nested).filterNot(c => Set("ts9", "ltz9", "r")(c.name))
    case _ => atomic ++ nested :+ multiset
  }

  /** Java's rows of `name` with nested values as plain Scala values, and timestamps as UTC wall clocks. */
  private def javaRows(name: String): Seq[Seq[Any]] = {
    val table = java.table(name)
    val types = table.rowType().getFieldTypes.asScala.toSeq
    val read = table.newReadBuilder()
    val out = Seq.newBuilder[Seq[Any]]
    val reader = read.newRead().createReader(read.newScan().plan().splits())
    try reader.forEachRemaining(row => out += types.indices.map(i => javaValue(PaimonRow.createFieldGetter(types(i), i)
      .getFieldOrNull(row), types(i))))
    finally reader.close()
    JavaPaimon.sorted(out.result())
  }

  private def javaValue(v: Any, t: DataType): Any = (v, t) match {
    case (null, _) => null
    case (a: InternalArray, at: PArrayType) =>
      val get = InternalArray.createElementGetter(at.getElementType)
      (0 until a.size).map(i => javaValue(get.getElementOrNull(a, i), at.getElementType))
    case (m: InternalMap, mt: PMapType) => entries(m, mt.getKeyType, mt.getValueType)
    case (m: InternalMap, mt: PMultiset) => entries(m, mt.getElementType, DataTypes.INT())
    case (r: PaimonRow, rt: PRowType) =>
      rt.getFieldTypes.asScala.toSeq.zipWithIndex.map { case (ft, i) => javaValue(PaimonRow.createFieldGetter(ft, i).getFieldOrNull(r), ft) }
    case (b: Array[Byte], _) => b.toSeq
    case (other, _) => JavaPaimon.plain(other)
  }

  private def entries(m: InternalMap, k: DataType, v: DataType): Map[Any, Any] = {
    val (getK, getV) = (InternalArray.createElementGetter(k), InternalArray.createElementGetter(v))
    (0 until m.size).map(i => javaValue(getK.getElementOrNull(m.keyArray(), i), k) ->
      javaValue(getV.getElementOrNull(m.valueArray(), i), v)).toMap
  }

  /** Our rows of `name` in the same plain values: LTZ instants as UTC wall clocks, TIME as its int. */
  private def ourRows(name: String): Seq[Seq[Any]] =
    JavaPaimon.sorted(spark.sql(s"SELECT * FROM paimon.default.$name").collect().toSeq.map(r => r.toSeq.map(sparkValue)))

  private def sparkValue(v: Any): Any = v match {
    case i: Instant => LocalDateTime.ofInstant(i, ZoneOffset.UTC)
    case r: Row => r.toSeq.map(sparkValue)
    case m: scala.collection.Map[_, _] => m.map { case (k, x) => sparkValue(k) -> sparkValue(x) }.toMap
    case s: scala.collection.Seq[_] => s.map(sparkValue).toSeq
    case b: Array[Byte] => b.toSeq
    case other => other
  }

  /** The physical schema of a data file, as its format states it: types, annotations, field ids. */
  private def physicalSchema(file: Path): String = {
    val path = new HadoopPath(file.toUri)
    val conf = new Configuration()
    file.getFileName.toString.split('.').last match {
      case "parquet" =>
        val reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))
        try reader.getFooter.getFileMetaData.getSchema.toString finally reader.close()
      case "orc" =>
        val reader = OrcFile.createReader(path, OrcFile.readerOptions(conf))
        try orcNodes(reader.getSchema).mkString("\n") finally reader.close()
      case "avro" =>
        val reader = new DataFileReader[GenericRecord](file.toFile, new GenericDatumReader[GenericRecord]())
        try reader.getSchema.toString(true) finally reader.close()
    }
  }

  private def orcNodes(t: TypeDescription): Seq[String] =
    s"${t.getId} ${t.toString} ${t.getAttributeNames.asScala.map(a => s"$a=${t.getAttributeValue(a)}").mkString(",")}" +:
      Option(t.getChildren).map(_.asScala.toSeq.flatMap(orcNodes)).getOrElse(Nil)

  private def dataFiles(name: String): Set[Path] = {
    val dir = warehouse.resolve("default.db").resolve(name).resolve("bucket-0")
    Files.list(dir).iterator().asScala.filter(_.getFileName.toString.startsWith("data-")).toSet
  }

  Seq("parquet", "orc", "avro").foreach { format =>
    test(s"$format: our data files carry the physical schema of Java's, and each side reads the other's rows as written") {
      val name = s"encoding_$format"
      val cols = columns(format)
      val schema = Schema.newBuilder().column("id", DataTypes.INT())
      cols.foreach(c => schema.column(c.name, c.javaType))
      java.createTable(s"default.$name", schema.option("file.format", format).build())
      java.insert(s"default.$name", (0 until 3).map(r => Int.box(r + 1) +: cols.map(_.cells(r)._1)): _*)
      val javas = dataFiles(name)
      spark.sql(s"INSERT INTO paimon.default.$name VALUES " +
        (0 until 3).map(r => ((r + 11).toString +: cols.map(_.cells(r)._2)).mkString("(", ", ", ")")).mkString(", "))
      val ours = dataFiles(name) -- javas
      assert(javas.size == 1 && ours.size == 1)
      assert(physicalSchema(ours.head) == physicalSchema(javas.head))

      // Neither engine tells our files from Java's; we read Java's rows as Java reads them, and as they were written.
      def split(rows: Seq[Seq[Any]]) = (JavaPaimon.sorted(rows.filter(_.head.asInstanceOf[Int] < 10).map(_.tail)),
        JavaPaimon.sorted(rows.filter(_.head.asInstanceOf[Int] > 10).map(_.tail)))
      val written = JavaPaimon.sorted((0 until 3).map(r => cols.map(c => javaValue(c.cells(r)._1, c.javaType))))
      val (javaOfJava, javaOfOurs) = split(javaRows(s"default.$name"))
      val (oursOfJava, oursOfOurs) = split(ourRows(name))
      assert(javaOfOurs == javaOfJava && oursOfOurs == oursOfJava)
      val notAsJava = differing(oursOfJava, javaOfJava)
      val notAsWritten = differing(written, oursOfJava)
      if (format != "orc") assert(notAsJava.isEmpty && notAsWritten.isEmpty, s"$notAsJava $notAsWritten")
      else {
        // ORC, in Java's files and ours alike: a time before 1970 with a fraction of a second reads a second later, in
        // both engines; and Java's reader takes times before 1582-10-15 days off, in the calendar its writer left them.
        assert(notAsWritten.nonEmpty && notAsWritten.forall { case (w, read) => secondLater(w, read) }, notAsWritten)
        assert(notAsJava.nonEmpty && notAsJava.forall { case (ours, _) => beforeGregorian(ours) }, notAsJava)
      }
    }
  }

  /** The cells (nested values whole) where two readings of the same rows differ, as pairs. */
  private def differing(a: Seq[Seq[Any]], b: Seq[Seq[Any]]): Seq[(Any, Any)] =
    for ((x, y) <- a.zip(b); (xc, yc) <- x.zip(y) if xc != yc) yield (xc, yc)

  private def secondLater(written: Any, read: Any): Boolean = (written, read) match {
    case (w: LocalDateTime, r: LocalDateTime) => w.getYear == 1969 && w.getNano > 0 && r == w.plusSeconds(1)
    case (w: Seq[_], r: Seq[_]) => w.zip(r).forall { case (a, b) => a == b || secondLater(a, b) }
    case _ => false
  }

  private def beforeGregorian(v: Any): Boolean = v match {
    case t: LocalDateTime => t.isBefore(LocalDateTime.parse("1582-10-15T00:00"))
    case s: Seq[_] => s.exists(beforeGregorian)
    case _ => false
  }

  test("our compaction of Java's small files keeps Java's timestamps: it rewrites them in Paimon's units") {
    java.createTable("default.compacted", Schema.newBuilder().column("id", DataTypes.INT())
      .column("ts3", DataTypes.TIMESTAMP(3)).column("ts9", DataTypes.TIMESTAMP(9)).build())
    (1 to 5).foreach(i => java.insert("default.compacted",
      Seq(Int.box(i), ntz(s"2024-01-01 00:00:0$i.501")._1, ntz(s"1969-12-31 23:59:5$i.000001")._1)))
    val before = javaRows("default.compacted")
    spark.sql("CALL paimon.sys.compact(table => 'default.compacted')")
    assert(dataFiles("compacted").size == 6, "the compaction added one file")
    assert(spark.sql("SELECT commit_kind FROM paimon.default.`compacted$snapshots` ORDER BY snapshot_id DESC LIMIT 1")
      .head().getString(0) == "COMPACT")
    assert(javaRows("default.compacted") == before)
    assert(before.head == Seq(1, LocalDateTime.parse("2024-01-01T00:00:01.501"), LocalDateTime.parse("1969-12-31T23:59:51.000001")))
  }

  test("a table whose Avro files could not hold a column as Paimon writes them is refused, naming the column") {
    def refusal(statement: String): UnsupportedFeatureException = {
      val e = intercept[Throwable](spark.sql(statement))
      Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .collectFirst { case u: UnsupportedFeatureException => u }.getOrElse(fail(e))
    }
    java.createTable("default.nanos", Schema.newBuilder().column("id", DataTypes.INT())
      .column("ts9", DataTypes.TIMESTAMP(9)).build())
    spark.sql("INSERT INTO paimon.default.nanos VALUES (1, TIMESTAMP_NTZ '2024-01-01 00:00:00.123456')")
    val altered = refusal("ALTER TABLE paimon.default.nanos SET TBLPROPERTIES ('file.format.per.level' = '3:avro')")
    assert(altered.getMessage.contains("column 'ts9'") && altered.getMessage.contains("TIMESTAMP(9)"), altered.getMessage)
    assert(spark.sql("SELECT * FROM paimon.default.`nanos$schemas`").count() == 1, "the schema changed")
  }

  test("a TIMESTAMP(3) file an earlier version wrote in microseconds reads right here and is repaired by a forced compaction") {
    // What earlier versions wrote: INT64 microseconds under a schema that says TIMESTAMP(3). Java writes such a file
    // for TIMESTAMP(6), whose schema then says 3 digits (no statistics of the column are read here).
    java.createTable("default.legacy", Schema.newBuilder().column("id", DataTypes.INT()).column("ts", DataTypes.TIMESTAMP(6))
      .option("bucket", "-1").build())
    java.insert("default.legacy", Seq(Int.box(1), ntz("2024-02-29 23:59:58.123")._1))
    val schemaFile = warehouse.resolve("default.db").resolve("legacy").resolve("schema").resolve("schema-0")
    Files.writeString(schemaFile, Files.readString(schemaFile).replace("\"TIMESTAMP(6)\"", "\"TIMESTAMP(3)\""))
    val target = dataFiles("legacy").head
    assert(physicalSchema(target).contains("int64 ts (TIMESTAMP(MICROS,false))"), physicalSchema(target))
    val written = LocalDateTime.parse("2024-02-29T23:59:58.123")
    assert(ourRows("legacy") == Seq(Seq(1, written)), "we read by the file's unit")
    assert(javaRows("default.legacy") != Seq(Seq(1, written)), "Java reads by the declared precision: a wrong date")
    spark.sql("CALL paimon.sys.compact(table => 'default.legacy', options => 'compaction.force-rewrite-all-files=true')")
    val repaired = dataFiles("legacy").filterNot(_ == target)
    assert(repaired.size == 1 && physicalSchema(repaired.head).contains("int64 ts (TIMESTAMP(MILLIS,false))"))
    assert(javaRows("default.legacy") == Seq(Seq(1, written)) && ourRows("legacy") == Seq(Seq(1, written)))
  }

  test("a data file holding a column in another physical type than its schema says is refused, naming file and column") {
    Seq("parquet", "orc", "avro").foreach { format =>
      // Java writes an INT where the table's schema says TIMESTAMP(3): the file of one table put in the other's place.
      Seq("ints" -> DataTypes.INT(), "times" -> DataTypes.TIMESTAMP(3)).foreach { case (t, tsType) =>
        java.createTable(s"default.${t}_$format", Schema.newBuilder().column("id", DataTypes.INT()).column("ts", tsType)
          .option("file.format", format).build())
      }
      java.insert(s"default.ints_$format", Seq(Int.box(1), Int.box(5)))
      java.insert(s"default.times_$format", Seq(Int.box(1), Timestamp.fromEpochMillis(5)))
      val target = dataFiles(s"times_$format").head
      Files.copy(dataFiles(s"ints_$format").head, target, StandardCopyOption.REPLACE_EXISTING)
      val e = intercept[Throwable](spark.sql(s"SELECT * FROM paimon.default.times_$format").collect())
      val corrupt = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .collectFirst { case c: CorruptFileException => c }.getOrElse(fail(s"$format: never a wrong value", e))
      assert(corrupt.getMessage.contains(target.toString) && corrupt.getMessage.contains("column 'ts'") &&
        corrupt.getMessage.contains("contradicts its table's schema"), s"$format: ${corrupt.getMessage}")
    }
  }
}
