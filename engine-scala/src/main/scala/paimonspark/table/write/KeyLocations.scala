package paimonspark.table.write

import java.io.{DataInputStream, DataOutputStream}

import scala.collection.mutable

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import paimonspark.fs.FileIO

/**
 * Where the keys of one assigner of a cross-partition table live, as Paimon's GlobalIndexAssigner
 * keeps them: key -> (partition, bucket), and the keys each bucket holds, which decide where new
 * keys go. Keys and partitions are UnsafeRows of the writer's projections of the primary key and
 * the partition columns, so the same values are the same bytes on both sides of the bootstrap.
 */
final class KeyLocations {
  private val partitions = mutable.ArrayBuffer.empty[UnsafeRow]
  private val partitionIds = mutable.HashMap.empty[UnsafeRow, Int]
  // (partition id << 32) | bucket, by key.
  private val keys = new java.util.HashMap[UnsafeRow, java.lang.Long]
  private val counts = mutable.HashMap.empty[Int, mutable.TreeMap[Int, Int]]

  /** The id of a partition's values, given one when first seen (the row is copied then). */
  def partitionId(partition: UnsafeRow): Int = partitionIds.getOrElse(partition, {
    val kept = partition.copy()
    partitions += kept
    partitionIds(kept) = partitions.size - 1
    partitions.size - 1
  })

  def partition(id: Int): UnsafeRow = partitions(id)

  /** The (partition id, bucket) of a key, or None. */
  def get(key: UnsafeRow): Option[(Int, Int)] =
    Option(keys.get(key)).map(v => ((v >>> 32).toInt, v.toInt))

  /**
   * Records where a key lives: a new key counts in its bucket (and is copied, unless `owned`), a
   * moved one leaves its old bucket's count.
   */
  def put(key: UnsafeRow, partitionId: Int, bucket: Int, owned: Boolean = false): Unit = {
    val value = (partitionId.toLong << 32) | (bucket & 0xffffffffL)
    val previous = keys.get(key)
    if (previous == null || previous != value) {
      if (previous == null) keys.put(if (owned) key else key.copy(), value)
      else {
        keys.put(key, value)
        counts.get((previous >>> 32).toInt).foreach(m => m.get(previous.toInt).foreach(n => m(previous.toInt) = n - 1))
      }
      val ofPartition = counts.getOrElseUpdate(partitionId, mutable.TreeMap.empty)
      ofPartition(bucket) = ofPartition.getOrElse(bucket, 0) + 1
    }
  }

  /**
   * Paimon's BucketAssigner: the lowest bucket `owns` that holds fewer than `target` keys, else the
   * lowest owned id the partition has no key in. Counting the key is [[put]]'s.
   */
  def newBucket(partitionId: Int, owns: Int => Boolean, target: Long): Int = {
    val ofPartition = counts.getOrElse(partitionId, mutable.TreeMap.empty[Int, Int])
    ofPartition.collectFirst { case (b, n) if owns(b) && n < target => b }
      .getOrElse(Iterator.from(0).find(b => owns(b) && !ofPartition.contains(b)).get)
  }
}

/**
 * The files a bootstrap writes, one per assigner: entries of (partition, bucket, key) as
 * [[entry]] lays them out, each led by its length, then a length of -1.
 */
object KeyLocations {
  /** One key's location as bytes: the partition's row length, its bytes, the bucket, the key's bytes. */
  def entry(key: UnsafeRow, partition: UnsafeRow, bucket: Int): Array[Byte] = {
    val bytes = new Array[Byte](8 + partition.getSizeInBytes + key.getSizeInBytes)
    val buffer = java.nio.ByteBuffer.wrap(bytes)
    buffer.putInt(partition.getSizeInBytes)
    partition.writeTo(buffer)
    buffer.putInt(bucket)
    key.writeTo(buffer)
    bytes
  }

  def write(io: FileIO, path: Path, entries: Iterator[Array[Byte]]): Unit = {
    val out = new DataOutputStream(new java.io.BufferedOutputStream(io.fileSystem(path).create(path, true), 1 << 16))
    try {
      entries.foreach { e => out.writeInt(e.length); out.write(e) }
      out.writeInt(-1)
    } finally out.close()
  }

  /** The locations in a slice file; a missing file is an assigner without keys. */
  def read(io: FileIO, path: Path, keyWidth: Int, partitionWidth: Int): KeyLocations = {
    val locations = new KeyLocations
    if (!io.exists(path)) return locations
    val in = new DataInputStream(new java.io.BufferedInputStream(io.fileSystem(path).open(path), 1 << 16))
    val partition = new UnsafeRow(partitionWidth)
    try {
      var length = in.readInt()
      while (length >= 0) {
        val bytes = new Array[Byte](length)
        in.readFully(bytes)
        val partitionSize = java.nio.ByteBuffer.wrap(bytes).getInt(0)
        partition.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + 4, partitionSize)
        val bucket = java.nio.ByteBuffer.wrap(bytes).getInt(4 + partitionSize)
        val key = new UnsafeRow(keyWidth)
        key.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + 8 + partitionSize, length - 8 - partitionSize)
        locations.put(key, locations.partitionId(partition), bucket, owned = true)
        length = in.readInt()
      }
    } finally in.close()
    locations
  }
}
