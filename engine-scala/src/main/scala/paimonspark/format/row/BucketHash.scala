package paimonspark.format.row

/**
 * Paimon's default bucket function: MurmurHash3 (x86, 32-bit) with seed 42 over the bytes of the
 * bucket key's BinaryRow, read as little-endian 4-byte words (`MurmurHashUtils.hashBytesByWords`),
 * and `abs(hash % buckets)`. Java, pypaimon and this engine must agree key for key, or a later writer
 * puts a key in a second bucket.
 */
object BucketHash {
  private val Seed = 42

  /** The hash of a BinaryRow's bytes (without the arity prefix); their length is a multiple of 8. */
  def hash(rowBytes: Array[Byte]): Int = hash(rowBytes, rowBytes.length)

  /** The hash of the first `length` bytes of `bytes`, a BinaryRow's. */
  def hash(bytes: Array[Byte], length: Int): Int = {
    require(length % 4 == 0, s"a BinaryRow has a length divisible by 4, not $length")
    var h = Seed
    var i = 0
    while (i < length) {
      h = mix(h, (bytes(i) & 0xff) | (bytes(i + 1) & 0xff) << 8 | (bytes(i + 2) & 0xff) << 16 | (bytes(i + 3) & 0xff) << 24)
      i += 4
    }
    finish(h, length)
  }

  /**
   * The hash of the BinaryRow of a key of one non-null BIGINT, without writing the row: 16 bytes, a
   * zero header word pair, then the value's low and high words.
   */
  def hashOfLong(value: Long): Int = {
    val header = mix(mix(Seed, 0), 0)
    finish(mix(mix(header, value.toInt), (value >>> 32).toInt), 16)
  }

  /** The same for a key of one non-null INT or DATE: its 4 bytes in the 8-byte slot, zeros above (not its sign). */
  def hashOfInt(value: Int): Int = hashOfLong(value & 0xffffffffL)

  private def mix(h: Int, word: Int): Int = {
    val k = Integer.rotateLeft(word * 0xcc9e2d51, 15) * 0x1b873593
    Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64
  }

  private def finish(hash: Int, length: Int): Int = {
    var h = hash ^ length
    h ^= h >>> 16
    h *= 0x85ebca6b
    h ^= h >>> 13
    h *= 0xc2b2ae35
    h ^ (h >>> 16)
  }

  /** The bucket of a key among `buckets`, with Java's truncating remainder. */
  def bucket(rowBytes: Array[Byte], buckets: Int): Int = bucketOf(hash(rowBytes), buckets)

  /** The bucket of a key's hash among `buckets`. */
  def bucketOf(hash: Int, buckets: Int): Int = math.abs(hash % buckets)
}
