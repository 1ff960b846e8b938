package paimonspark.format.metadata

import java.io.{ByteArrayOutputStream, DataOutputStream}

import scala.util.Random

import org.apache.paimon.deletionvectors.{Bitmap64DeletionVector, BitmapDeletionVector, DeletionVector => JavaVector}
import org.scalatest.funsuite.AnyFunSuite

/**
 * Deletion vectors as Apache Paimon's Java core serializes them into an index file (a version byte,
 * then vector after vector), 32-bit and 64-bit, read back here position for position; damaged ones
 * are refused naming the file.
 */
class DeletionVectorSuite extends AnyFunSuite {
  /** An index file of Java's vectors: its bytes and each vector's (offset, length) as the manifest records them. */
  private def indexFile(vectors: Seq[JavaVector]): (Array[Byte], Seq[(Int, Int)]) = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    out.writeByte(1)
    val ranges = vectors.map { v =>
      val start = out.size()
      start -> v.serializeTo(out)
    }
    out.close()
    (bytes.toByteArray, ranges)
  }

  private def positions(random: Random, n: Int, below: Long): Seq[Long] =
    Seq.fill(n)((random.nextDouble() * below).toLong).distinct

  Seq("32-bit" -> (() => new BitmapDeletionVector(): JavaVector, Int.MaxValue.toLong),
    "64-bit" -> (() => new Bitmap64DeletionVector(): JavaVector, 1L << 40)).foreach { case (layout, (make, range)) =>
    test(s"$layout vectors Java writes read here with exactly their positions") {
      val random = new Random(7)
      val deleted = Seq(positions(random, 2000, 100000), positions(random, 300, range), Seq(0L), Nil)
      val vectors = deleted.map { ps => val v = make(); ps.foreach(v.delete); v }
      val (bytes, ranges) = indexFile(vectors)
      deleted.zip(ranges).foreach { case (ps, (offset, length)) =>
        val v = DeletionVector.read(bytes, offset, length, "index-1")
        assert(v.cardinality == ps.size)
        ps.foreach(p => assert(v.isDeleted(p), s"$layout position $p"))
        positions(random, 500, range).filterNot(ps.toSet).foreach(p => assert(!v.isDeleted(p), s"$layout position $p"))
      }
    }
  }

  test("a range's marks in one walk are the positions isDeleted finds, across unsigned low halves and 32-bit keys") {
    val random = new Random(5)
    val edges = Seq(Int.MaxValue.toLong, 1L << 32).flatMap(e => (-3L to 3L).map(e + _))
    val v = DeletionVector.empty.withDeleted(positions(random, 3000, 100000) ++ positions(random, 300, 1L << 40) ++ edges)
    val windows = Seq((0L, 4096), (99000L, 4096), (200000L, 4096), (Int.MaxValue.toLong - 10, 20), ((1L << 32) - 2, 7)) ++
      edges.map(e => (e - 1, 3)) ++ Seq.fill(50)(((random.nextDouble() * (1L << 40)).toLong, 1000))
    windows.foreach { case (from, n) =>
      val marks = new Array[Boolean](n + 1)
      val count = v.markDeleted(from, n, marks)
      val expected = (0 until n).map(i => v.isDeleted(from + i))
      assert(marks.take(n).toSeq == expected, s"window $from + $n")
      assert(count == expected.count(identity) && !marks(n), s"window $from + $n")
    }
    assert(edges.forall(v.isDeleted))
  }

  Seq(false, true).foreach { bitmap64 =>
    test(s"${if (bitmap64) "64" else "32"}-bit vectors we write read in Java with exactly their positions") {
      val random = new Random(11)
      val range = if (bitmap64) 1L << 40 else Int.MaxValue.toLong
      val deleted = Seq(positions(random, 2000, 100000), positions(random, 300, range), Seq(0L), Nil)
      val (bytes, ranges) = DeletionVectorIndexFile.write(deleted.zipWithIndex.map { case (ps, i) =>
        s"data-$i.parquet" -> DeletionVector.empty.withDeleted(ps)
      }, bitmap64)
      assert(bytes(0) == DeletionVectorIndexFile.Version)
      deleted.zip(ranges).foreach { case (ps, range) =>
        assert(range.cardinality.contains(ps.size.toLong))
        // Java's reader takes the 32-bit length without, and the 64-bit one with, the length and checksum ints.
        val in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes, range.offset, bytes.length))
        val v = JavaVector.read(in, java.lang.Long.valueOf(range.length.toLong))
        assert(v.getCardinality == ps.size, range.dataFile)
        ps.foreach(p => assert(v.isDeleted(p), s"position $p"))
        assert(DeletionVector.read(bytes, range.offset, range.length, "index-1").cardinality == ps.size)
      }
    }
  }

  test("a 32-bit vector refuses positions past 2^32, naming the data file and bitmap64") {
    val e = intercept[IllegalArgumentException](DeletionVector.empty.withDeleted(Seq(1L << 33)).serialize(false, "f-1.parquet"))
    assert(e.getMessage.contains("f-1.parquet") && e.getMessage.contains("deletion-vectors.bitmap64"))
  }

  test("a damaged vector is refused naming the file: magic number, checksum, length, offset past the end") {
    val v = new BitmapDeletionVector()
    Seq(3L, 99L).foreach(v.delete)
    val (bytes, Seq((offset, length))) = indexFile(Seq(v))
    def refused(b: Array[Byte], at: Int = offset, size: Int = length): String =
      intercept[IllegalArgumentException](DeletionVector.read(b, at, size, "index-9")).getMessage
    val badMagic = bytes.clone()
    badMagic(offset + 4) = (badMagic(offset + 4) ^ 0x55).toByte
    assert(refused(badMagic).contains("index-9"))
    val badBitmap = bytes.clone()
    badBitmap(offset + 12) = (badBitmap(offset + 12) ^ 0x01).toByte
    assert(refused(badBitmap).contains("checksum mismatch"))
    assert(refused(bytes, size = length + 1).contains("the manifest says"))
    assert(refused(bytes, at = bytes.length).contains("holds only"))
    assert(refused(bytes.take(bytes.length - 2)).contains("runs past the end"))
    // A wrong magic number with a matching checksum is named as such.
    val other = bytes.clone()
    java.nio.ByteBuffer.wrap(other).putInt(offset + 4, 12345)
    val crc = new java.util.zip.CRC32()
    crc.update(other, offset + 4, length)
    java.nio.ByteBuffer.wrap(other).putInt(offset + 4 + length, crc.getValue.toInt)
    assert(refused(other).contains("magic number 12345"))
  }
}
