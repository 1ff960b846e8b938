package paimonspark.format

import java.nio.file.Files

import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{Decimal => SparkDecimal}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.fs.{FileIO, HadoopConf}

/**
 * The flat-row shortcut of the Parquet writer ([[FlatRowWriter]]: values straight into the column
 * writers, strings without a copy) against Parquet's record assembly, the path nested rows take:
 * for random rows of every flat type, with nulls, held as generic rows, as unsafe rows in byte
 * arrays and as unsafe rows over long arrays, both write the same file, byte for byte.
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

  private def value(random: Random, column: Int): Any = if (random.nextInt(7) == 0) null else column match {
    case 0 => random.nextBoolean()
    case 1 => random.nextInt(256).toByte
    case 2 => random.nextInt(65536).toShort
    case 3 | 7 => random.nextInt(1000) // few values: dictionary pages
    case 4 | 13 => random.nextLong()
    case 5 => random.nextFloat()
    case 6 => random.nextDouble()
    case 8 => SparkDecimal(random.nextInt(1000000000) / 100.0, 9, 2)
    case 9 => SparkDecimal(BigDecimal(random.nextLong() % 100000000000000L, 4), 18, 4)
    case 10 => SparkDecimal(BigDecimal(BigInt(random.nextLong()) * 1000003, 3), 30, 3)
    case 11 => UTF8String.fromString(if (random.nextBoolean()) s"v${random.nextInt(50)}" else random.alphanumeric.take(random.nextInt(40)).mkString)
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

  private def write(name: String, rows: Seq[InternalRow], flatRows: Boolean): Array[Byte] = {
    val path = new Path(dir.resolve(name).toUri)
    val spec = FileWriteSpec(DataFileFormat.Parquet, "zstd", 1, Map("parquet.page.row.count.limit" -> "700"))
    val file = new ParquetDataFile(io.newOutputFile(path), fields, new Configuration(), spec, flatRows = flatRows)
    rows.foreach(file.write)
    file.close()
    Files.readAllBytes(dir.resolve(name))
  }

  test("flat rows and record assembly write the same file from generic rows, unsafe rows and rows over long arrays") {
    (1 to 5).foreach { seed =>
      val random = new Random(seed)
      val generic = Seq.fill(3000)(new GenericInternalRow(fields.indices.map(value(random, _)).toArray): InternalRow)
      val reference = write(s"assembled-$seed.parquet", generic, flatRows = false)
      val unsafe = generic.map(r => toUnsafe(r).copy())
      val sources = Seq("generic" -> generic, "unsafe" -> unsafe, "long-array" -> unsafe.map(overLongs))
      sources.foreach { case (kind, rows) =>
        val flat = write(s"flat-$kind-$seed.parquet", rows, flatRows = true)
        assert(java.util.Arrays.equals(flat, reference), s"seed $seed, $kind rows: ${flat.length} against ${reference.length} bytes")
      }
    }
  }
}
