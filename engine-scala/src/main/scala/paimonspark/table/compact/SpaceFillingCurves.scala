package paimonspark.table.compact

/**
 * Keys that order rows along a space-filling curve over several columns, so that sorting by the key
 * keeps rows close in every column close in the file order (what sort compaction's `zorder` and
 * `hilbert` strategies are for: file statistics then skip files on any of the columns). Each column
 * comes as a 64-bit value whose unsigned order is the column's order; a key is bytes whose unsigned
 * lexicographic order is the curve's.
 */
object SpaceFillingCurves {
  /** Z-order (Morton): the values' bits interleaved, most significant first. */
  def zOrder(values: Array[Long]): Array[Byte] = interleave(values)

  /**
   * The Hilbert curve's index, by Skilling's algorithm ("Programming the Hilbert curve", 2004): the
   * values are turned into the transposed index in place, whose bits interleaved are the index.
   * Neighbours on the curve are neighbours in space, which z-order's jumps are not.
   */
  def hilbert(values: Array[Long]): Array[Byte] = {
    val x = values.clone()
    val n = x.length
    var q = 1L << 63
    while (q != 1L) { // inverse undo, from the top bit down
      val p = q - 1
      var i = 0
      while (i < n) {
        if ((x(i) & q) != 0) x(0) ^= p
        else {
          val t = (x(0) ^ x(i)) & p
          x(0) ^= t
          x(i) ^= t
        }
        i += 1
      }
      q >>>= 1
    }
    var i = 1
    while (i < n) { x(i) ^= x(i - 1); i += 1 } // Gray encode
    var t = 0L
    q = 1L << 63
    while (q != 1L) {
      if ((x(n - 1) & q) != 0) t ^= q - 1
      q >>>= 1
    }
    i = 0
    while (i < n) { x(i) ^= t; i += 1 }
    interleave(x)
  }

  private def interleave(values: Array[Long]): Array[Byte] = {
    val n = values.length
    val out = new Array[Byte](n * 8)
    var bit = 0
    var b = 63
    while (b >= 0) {
      var d = 0
      while (d < n) {
        if (((values(d) >>> b) & 1L) != 0) out(bit >>> 3) = (out(bit >>> 3) | (0x80 >>> (bit & 7))).toByte
        bit += 1
        d += 1
      }
      b -= 1
    }
    out
  }
}
