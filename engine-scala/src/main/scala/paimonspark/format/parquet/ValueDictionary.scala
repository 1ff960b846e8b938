package paimonspark.format.parquet

import java.util.Arrays


/**
 * The dictionary of one Parquet column chunk: each distinct value gets the next id, in the order
 * values are first seen, as parquet-mr's dictionary writers number them. `byteSize` counts the
 * dictionary page's plain bytes the way parquet-mr does, to fall back to plain at the same point.
 * Open addressing over parallel arrays: no boxing, no object per entry.
 */
sealed abstract class ValueDictionary {
  protected var slots = new Array[Int](1 << 10) // id + 1 of the entry hashed here, 0 when empty
  protected var mask: Int = slots.length - 1
  var size = 0
  var byteSize = 0L

  protected def rehash(hashOf: Int => Int): Unit = {
    slots = new Array[Int](slots.length * 2)
    mask = slots.length - 1
    var id = 0
    while (id < size) {
      var slot = hashOf(id) & mask
      while (slots(slot) != 0) slot = (slot + 1) & mask
      slots(slot) = id + 1
      id += 1
    }
  }

  def clear(): Unit = {
    Arrays.fill(slots, 0)
    size = 0
    byteSize = 0
  }
}

/** Values of up to 64 bits, keyed by their bits (a float's or double's canonical bits, as fastutil keys them). */
final class LongDictionary(width: Int) extends ValueDictionary {
  private var values = new Array[Long](256)

  /** The entries in id order: the first `size` of this array. */
  def entries: Array[Long] = values

  def idOf(v: Long): Int = {
    var slot = LongDictionary.mix(v) & mask
    while (true) {
      val at = slots(slot)
      if (at == 0) return insert(v, slot)
      if (values(at - 1) == v) return at - 1
      slot = (slot + 1) & mask
    }
    -1
  }

  private def insert(v: Long, slot: Int): Int = {
    if (size == values.length) values = Arrays.copyOf(values, size * 2)
    values(size) = v
    slots(slot) = size + 1
    size += 1
    byteSize += width
    if (size * 2 > slots.length) rehash(id => LongDictionary.mix(values(id)))
    size - 1
  }
}

object LongDictionary {
  private def mix(v: Long): Int = {
    val h = v * 0x9e3779b97f4a7c15L
    (h ^ (h >>> 32) ^ (h >>> 16)).toInt
  }
}

/** Byte strings, copied into one arena as they are first seen. */
final class BinaryDictionary extends ValueDictionary {
  private var arena = new Array[Byte](1 << 12)
  private var offsets = new Array[Int](257) // entry i is arena[offsets(i), offsets(i + 1))
  private var hashes = new Array[Int](256)

  def bytes: Array[Byte] = arena
  def start(id: Int): Int = offsets(id)
  def end(id: Int): Int = offsets(id + 1)

  def idOf(from: Array[Byte], at: Int, length: Int): Int = {
    val hash = BinaryDictionary.hash(from, at, length)
    var slot = hash & mask
    while (true) {
      val id = slots(slot) - 1
      if (id < 0) return insert(from, at, length, hash, slot)
      if (hashes(id) == hash && Arrays.equals(arena, offsets(id), offsets(id + 1), from, at, at + length)) return id
      slot = (slot + 1) & mask
    }
    -1
  }

  private def insert(from: Array[Byte], at: Int, length: Int, hash: Int, slot: Int): Int = {
    if (size == hashes.length) {
      hashes = Arrays.copyOf(hashes, size * 2)
      offsets = Arrays.copyOf(offsets, size * 2 + 1)
    }
    val start = offsets(size)
    if (start + length > arena.length) arena = Arrays.copyOf(arena, math.max(arena.length * 2, start + length))
    System.arraycopy(from, at, arena, start, length)
    offsets(size + 1) = start + length
    hashes(size) = hash
    slots(slot) = size + 1
    size += 1
    byteSize += 4L + length
    if (size * 2 > slots.length) rehash(id => hashes(id))
    size - 1
  }
}

object BinaryDictionary {
  private def hash(bytes: Array[Byte], at: Int, length: Int): Int = {
    var h = length * 0x9e3779b1
    var i = at
    val end = at + length
    while (i < end) { h = 31 * h + bytes(i); i += 1 }
    h ^ (h >>> 16)
  }
}
