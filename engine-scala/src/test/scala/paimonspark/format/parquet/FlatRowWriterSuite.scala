package paimonspark.format.parquet

import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetReader}
import org.apache.parquet.hadoop.example.GroupReadSupport
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{Decimal => SparkDecimal}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{AtomicType, DataField, DataFileFormat, FileWriteSpec, SparkTypes, TypeRoot}
import paimonspark.fs.{FileIO, HadoopConf}

/**
 * The flat-row path of the Parquet writer ([[FlatRowWriter]]: each column encoded a page at a time by
 * its [[ColumnChunkWriter]]) against parquet-mr's column writers behind the record assembly, the path
 * nested rows take. For random rows of every flat type, with nulls, held as generic rows, as unsafe
 * rows in byte arrays and as unsafe rows over long arrays: with pages cut by their row limit both
 * write the same file, byte for byte, whether dictionaries last, overflow on a later page, fail the
 * first page's check or are turned off; with pages cut by size (parquet-mr checks sizes every so
 * many rows, the chunk writers at every value) and several row groups, both hold the same rows and
 * statistics in files of nearly the same size.
 */
class FlatRowWriterSuite extends AnyFunSuite {
  private val io = new FileIO(new HadoopConf(new Configuration()))
  private val dir = Files.createTempDirectory("flat-rows")

  private def atomic(root: TypeRoot, params: Int*) = AtomicType(root, params, nullable = true)
  private val fields = Seq(
    atomic(TypeRoot.Boolean), atomic(TypeRoot.TinyInt), atomic(TypeRoot.SmallInt), atomic(TypeRoot.Int),
    atomic(TypeRoot.BigInt), atomic(TypeRoot.Float), atomic(TypeRoot.Double), atomic(TypeRoot.Date),
    atomic(TypeRoot.Decimal, 9, 2), atomic(TypeRoot.Decimal, 18, 4), atomic(TypeRoot.Decimal, 30, 3),
    atomic(TypeRoot.VarChar, TypeRoot.MaxLength), atomic(TypeRoot.VarBinary, TypeRoot.MaxLength),
    atomic(TypeRoot.Timestamp, 6)
  ).zipWithIndex.map { case (t, i) => DataField(i, s"c$i", t) }
  private val sparkSchema = SparkTypes.physical(SparkTypes.toSparkStruct(fields, withFieldIds = false))

  private def value(random: Random, column: Int, row: Int): Any = if (random.nextInt(7) == 0) null else column match {
    case 7 => row / 4 // a dictionary that grows slowly: kept on the first page, outgrows 2 kB on a later one
    case 0 => random.nextBoolean()
    case 1 => random.nextInt(256).toByte
    case 2 => random.nextInt(65536).toShort
    case 3 => random.nextInt(1000) // few values: dictionary pages
    case 4 | 13 => random.nextLong()
    case 5 => random.nextFloat()
    case 6 => random.nextDouble()
    case 8 => SparkDecimal(random.nextInt(1000000000) / 100.0, 9, 2)
    case 9 => SparkDecimal(BigDecimal(random.nextLong() % 100000000000000L, 4), 18, 4)
    case 10 => SparkDecimal(BigDecimal(BigInt(random.nextLong()) * 1000003, 3), 30, 3)
    // Mostly a slowly growing dictionary, now and then a random string (empty ones included).
    case 11 => UTF8String.fromString(if (random.nextInt(50) > 0) s"value-${row / 16}" else random.alphanumeric.take(random.nextInt(40)).mkString)
    case 12 => Array.fill(random.nextInt(20))(random.nextInt(256).toByte)
  }

  private val toUnsafe = UnsafeProjection.create(sparkSchema.fields.indices.map(i =>
    BoundReference(i, sparkSchema(i).dataType, nullable = true)))

  /** The same row as an unsafe row over a long array (how Spark's on-heap memory pages hold rows). */
  private def overLongs(row: UnsafeRow): UnsafeRow = {
    val longs = new Array[Long]((row.getSizeInBytes + 7) / 8)
    Platform.copyMemory(row.getBaseObject, row.getBaseOffset, longs, Platform.LONG_ARRAY_OFFSET, row.getSizeInBytes)
    val out = new UnsafeRow(row.numFields)
    out.pointTo(longs, Platform.LONG_ARRAY_OFFSET, row.getSizeInBytes)
    out
  }

  private def write(name: String, rows: Seq[InternalRow], flatRows: Boolean, options: Map[String, String]): Path = {
    val path = new Path(dir.resolve(name).toUri)
    val spec = FileWriteSpec(DataFileFormat.Parquet, "zstd", 1, options)
    val file = new ParquetDataFile(io.newOutputFile(path), fields, new Configuration(), spec, flatRows = flatRows)
    rows.foreach(file.write)
    file.close()
    path
  }

  private def bytes(path: Path): Array[Byte] = Files.readAllBytes(java.nio.file.Paths.get(path.toUri))

  private def randomRows(seed: Int, count: Int): Seq[InternalRow] = {
    val random = new Random(seed)
    Seq.tabulate(count)(row => new GenericInternalRow(fields.indices.map(value(random, _, row)).toArray): InternalRow)
  }

  private val rowLimited = Map("parquet.page.row.count.limit" -> "700")
  private val layouts = Seq(
    "dictionaries" -> rowLimited,
    // 2 kB of dictionary: the int and string columns overflow theirs, some on the first page, some later.
    "small dictionaries" -> (rowLimited + ("parquet.dictionary.page.size" -> "2048")),
    "no dictionary for c3 and c11" -> (rowLimited ++ Map("parquet.enable.dictionary#c3" -> "false", "parquet.enable.dictionary#c11" -> "false")))

  test("flat rows and record assembly write the same file from generic rows, unsafe rows and rows over long arrays") {
    for (seed <- 1 to 3; ((layout, options), n) <- layouts.zipWithIndex) {
      val generic = randomRows(seed, 3000)
      val reference = bytes(write(s"assembled-$seed-$n.parquet", generic, flatRows = false, options))
      val unsafe = generic.map(r => toUnsafe(r).copy())
      val sources = Seq("generic" -> generic, "unsafe" -> unsafe, "long-array" -> unsafe.map(overLongs))
      sources.foreach { case (kind, rows) =>
        val flat = bytes(write(s"flat-$kind-$seed-$n.parquet", rows, flatRows = true, options))
        assert(java.util.Arrays.equals(flat, reference), s"seed $seed, $layout, $kind rows: ${flat.length} against ${reference.length} bytes")
      }
    }
  }

  private def records(path: Path): Seq[String] = {
    val reader = ParquetReader.builder(new GroupReadSupport(), path).build()
    try Iterator.continually(reader.read()).takeWhile(_ != null).map(_.toString).toSeq finally reader.close()
  }

  private def footer(path: Path): ParquetMetadata = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))
    try reader.getFooter finally reader.close()
  }

  /** Each column's statistics over all row groups. */
  private def columnStatistics(meta: ParquetMetadata): Seq[String] = meta.getBlocks.asScala.map(_.getColumns.asScala)
    .transpose.map(chunks => chunks.map(_.getStatistics).reduce { (a, b) => a.mergeStatistics(b); a }.toString).toSeq

  test("pages cut by size and several row groups: the same rows, statistics and nearly the same size") {
    val options = Map("parquet.page.size" -> "4096", "parquet.block.size" -> "65536")
    (1 to 2).foreach { seed =>
      val rows = randomRows(seed, 6000).map(r => toUnsafe(r).copy())
      val reference = write(s"assembled-sized-$seed.parquet", rows, flatRows = false, options)
      val flat = write(s"flat-sized-$seed.parquet", rows, flatRows = true, options)
      assert(records(flat) == records(reference), s"seed $seed")
      val (flatFooter, referenceFooter) = (footer(flat), footer(reference))
      assert(flatFooter.getBlocks.size > 2 && referenceFooter.getBlocks.size > 2)
      assert(columnStatistics(flatFooter) == columnStatistics(referenceFooter))
      val (flatSize, referenceSize) = (bytes(flat).length, bytes(reference).length)
      assert(math.abs(flatSize - referenceSize) < referenceSize / 50, s"$flatSize against $referenceSize bytes")
    }
  }
}
