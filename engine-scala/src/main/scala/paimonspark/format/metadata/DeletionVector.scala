package paimonspark.format.metadata

import java.io.ByteArrayOutputStream
import java.nio.{ByteBuffer, ByteOrder}
import java.util.zip.CRC32

import scala.collection.mutable

import org.apache.hadoop.fs.Path
import org.roaringbitmap.RoaringBitmap

import paimonspark.fs.FileIO

/**
 * The positions of a data file's deleted rows, as Paimon 1.x keeps them in a `DELETION_VECTORS`
 * index file: one serialized vector per data file, at the offset and length the index manifest's
 * `_DELETIONS_VECTORS_RANGES` gives. Two layouts, told apart by their magic number:
 *  - 32-bit (`BitmapDeletionVector`): big-endian length of what follows up to the checksum, magic
 *    1581511376 (big-endian), a portable RoaringBitmap, a CRC32 of magic and bitmap;
 *  - 64-bit (`deletion-vectors.bitmap64`, Iceberg's layout): the same length, magic 1681511377
 *    little-endian, a little-endian count of 32-bit bitmaps each after its little-endian key (the
 *    positions' high 32 bits), the same checksum.
 */
final class DeletionVector private (bitmaps: Array[RoaringBitmap]) extends Serializable {
  def isDeleted(position: Long): Boolean = {
    val high = (position >>> 32).toInt
    high < bitmaps.length && bitmaps(high).contains(position.toInt)
  }

  def cardinality: Long = bitmaps.map(_.getLongCardinality).sum

  /**
   * Sets `deleted(i)` for each position `from + i` (i below `n`) this vector marks, and returns how many
   * it set: one walk over the marks in the range instead of a bitmap lookup per position. The other
   * entries are left as they are.
   */
  def markDeleted(from: Long, n: Int, deleted: Array[Boolean]): Int = {
    var marked = 0
    var position = from
    val until = from + n
    while (position < until) {
      val high = (position >>> 32).toInt
      // The positions of this bitmap in the range: its low 32 bits are unsigned.
      val segmentEnd = math.min(until, (high.toLong + 1) << 32)
      if (high < bitmaps.length && !bitmaps(high).isEmpty) {
        val marks = bitmaps(high).getIntIterator
        marks.advanceIfNeeded(position.toInt)
        var next = 0L
        while (marks.hasNext && { next = (high.toLong << 32) | (marks.peekNext() & 0xFFFFFFFFL); next < segmentEnd }) {
          deleted((next - from).toInt) = true
          marked += 1
          marks.next()
        }
      }
      position = segmentEnd
    }
    marked
  }

  /** The rows of a file, read from its first, that this vector does not mark. */
  def live[A](rows: Iterator[A]): Iterator[A] = {
    var position = -1L
    rows.filter { _ =>
      position += 1
      !isDeleted(position)
    }
  }

  /** This vector with `positions` deleted too. */
  def withDeleted(positions: Iterable[Long]): DeletionVector = {
    val byKey = mutable.Map.empty[Int, RoaringBitmap]
    bitmaps.indices.foreach(k => byKey(k) = bitmaps(k).clone())
    positions.foreach(p => byKey.getOrElseUpdate((p >>> 32).toInt, new RoaringBitmap()).add(p.toInt))
    val highest = if (byKey.isEmpty) -1 else byKey.keys.max
    new DeletionVector(Array.tabulate(highest + 1)(k => byKey.getOrElse(k, new RoaringBitmap())))
  }

  /**
   * The vector as an index file stores it, in the layout `bitmap64` chooses, and the length the
   * index manifest gives for it (32-bit: the bitmap data's; 64-bit: the whole record's).
   */
  def serialize(bitmap64: Boolean, file: String): (Array[Byte], Int) = {
    bitmaps.foreach(_.runOptimize())
    val data = new ByteArrayOutputStream()
    if (!bitmap64) {
      if (bitmaps.length > 1 && bitmaps.drop(1).exists(!_.isEmpty)) {
        throw new IllegalArgumentException(s"data file $file has deleted row positions beyond 2^32: such tables need " +
          "'deletion-vectors.bitmap64' = 'true'")
      }
      val bitmap = bitmaps.headOption.getOrElse(new RoaringBitmap())
      val body = ByteBuffer.allocate(4 + bitmap.serializedSizeInBytes())
      body.putInt(DeletionVector.Magic32)
      bitmap.serialize(body.slice().order(ByteOrder.LITTLE_ENDIAN))
      data.write(body.array())
    } else {
      val kept = bitmaps.indices.filterNot(k => bitmaps(k).isEmpty)
      val body = ByteBuffer.allocate(4 + 8 + kept.map(k => 4 + bitmaps(k).serializedSizeInBytes()).sum)
        .order(ByteOrder.LITTLE_ENDIAN)
      body.putInt(DeletionVector.Magic64).putLong(kept.size.toLong)
      kept.foreach { k =>
        body.putInt(k)
        val bitmap = body.slice().order(ByteOrder.LITTLE_ENDIAN)
        bitmaps(k).serialize(bitmap)
        body.position(body.position() + bitmap.position())
      }
      data.write(body.array())
    }
    val bytes = data.toByteArray
    val crc = new CRC32()
    crc.update(bytes)
    val record = ByteBuffer.allocate(4 + bytes.length + 4).putInt(bytes.length).put(bytes).putInt(crc.getValue.toInt)
    (record.array(), if (bitmap64) record.capacity() else bytes.length)
  }
}

object DeletionVector {
  val Magic32 = 1581511376
  val Magic64 = 1681511377

  val empty: DeletionVector = new DeletionVector(Array.empty)

  /** Reads the vector at `offset` of an index file's bytes; `length` is the manifest's; failures name `file`. */
  def read(bytes: Array[Byte], offset: Long, length: Long, file: String): DeletionVector = {
    def damaged(why: String) = new IllegalArgumentException(s"deletion vector at offset $offset of $file: $why")
    if (offset < 0 || offset + 8 > bytes.length) throw damaged(s"the file holds only ${bytes.length} bytes")
    val in = ByteBuffer.wrap(bytes)
    in.position(offset.toInt)
    val size = in.getInt()
    if (size < 4 || offset + 4 + size + 4 > bytes.length) throw damaged(s"a length of $size runs past the end")
    val data = ByteBuffer.wrap(bytes, offset.toInt + 4, size).slice()
    val crc = new CRC32()
    crc.update(bytes, offset.toInt + 4, size)
    val stored = ByteBuffer.wrap(bytes, offset.toInt + 4 + size, 4).getInt()
    if (stored != crc.getValue.toInt) throw damaged("checksum mismatch")
    val magic = data.getInt()
    if (magic == Magic32) {
      if (length != size) throw damaged(s"length $size, the manifest says $length")
      val bitmap = new RoaringBitmap()
      bitmap.deserialize(data.slice().order(ByteOrder.LITTLE_ENDIAN))
      new DeletionVector(Array(bitmap))
    } else if (Integer.reverseBytes(magic) == Magic64) {
      if (length != size + 8) throw damaged(s"length ${size + 8}, the manifest says $length")
      val body = data.slice().order(ByteOrder.LITTLE_ENDIAN)
      val count = body.getLong()
      if (count < 0 || count > Int.MaxValue) throw damaged(s"a count of $count bitmaps")
      val byKey = (0L until count).map { _ =>
        val key = body.getInt()
        val start = body.position()
        val bitmap = new RoaringBitmap()
        bitmap.deserialize(body.slice().order(ByteOrder.LITTLE_ENDIAN))
        body.position(start + bitmap.serializedSizeInBytes())
        key -> bitmap
      }.toMap
      val highest = if (byKey.isEmpty) -1 else byKey.keys.max
      new DeletionVector(Array.tabulate(highest + 1)(k => byKey.getOrElse(k, new RoaringBitmap())))
    } else throw damaged(s"magic number $magic is neither a 32-bit ($Magic32) nor a 64-bit ($Magic64) vector's")
  }
}

/** Where a data file's deletion vector is: its index file's path, and the manifest's offset and length. */
final case class DeletionFile(indexFile: String, offset: Long, length: Long) {
  /** As a reader's file metadata carries it. */
  def encoded: String = s"$offset:$length:$indexFile"
}

object DeletionFile {
  def decode(text: String): DeletionFile = {
    val Array(offset, length, path) = text.split(":", 3)
    DeletionFile(path, offset.toLong, length.toLong)
  }

  /** The vectors at `files` (by data file name), each index file read once. */
  def readAll(io: FileIO, files: Map[String, DeletionFile]): Map[String, DeletionVector] =
    files.groupBy(_._2.indexFile).flatMap { case (path, inFile) =>
      val bytes = io.readBytes(new Path(path))
      inFile.map { case (dataFile, d) => dataFile -> DeletionVector.read(bytes, d.offset, d.length, path) }
    }
}

/**
 * A `DELETION_VECTORS` index file as Paimon's `DeletionFileWriter` writes it: a version byte (1),
 * then each data file's vector back to back, at the offsets its manifest ranges give.
 */
object DeletionVectorIndexFile {
  val Version: Byte = 1

  /** The file's bytes and each vector's range, in the order given. */
  def write(vectors: Seq[(String, DeletionVector)], bitmap64: Boolean): (Array[Byte], Seq[DeletionVectorRange]) = {
    val out = new ByteArrayOutputStream()
    out.write(Version.toInt)
    val ranges = vectors.map { case (dataFile, vector) =>
      val offset = out.size()
      val (record, length) = vector.serialize(bitmap64, dataFile)
      out.write(record)
      DeletionVectorRange(dataFile, offset, length, Some(vector.cardinality))
    }
    (out.toByteArray, ranges)
  }
}
