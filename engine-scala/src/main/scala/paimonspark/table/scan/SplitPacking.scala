package paimonspark.table.scan

/**
 * How a read packs its pieces (a file or part of one, a key range of a bucket to merge, one
 * commit's change file, a bucket's diff) into tasks, by size, as Paimon's Spark connector and
 * Spark's file sources do. A piece weighs its bytes plus `openFileCost` for each file it opens, so
 * many small files do not crowd one task. A task holds pieces up to the split size: `targetSize`
 * (`source.split.target-size`), lowered for a small read so that it still spreads over `minTasks`
 * tasks (`spark.sql.files.minPartitionNum`, else the cores), and never below `openFileCost`. The
 * number of tasks then follows the bytes read, not the number of buckets or partitions.
 */
final case class SplitPacking(targetSize: Long, openFileCost: Long, minTasks: Int) {

  /** What a piece of `bytes` that opens `files` files weighs. */
  def weight(bytes: Long, files: Int): Long = bytes + files * openFileCost

  /** The split size for a read whose pieces weigh `totalWeight` together. */
  def splitSize(totalWeight: Long): Long =
    math.min(targetSize, math.max(openFileCost, totalWeight / math.max(1, minTasks)))

  /** `pieces` packed as [[pack]] does, at the split size their own total weight sets. */
  def packAll[A](pieces: Seq[A], weightOf: A => Long): Seq[Seq[A]] =
    pack(pieces, weightOf, splitSize(pieces.map(weightOf).sum))

  /**
   * `pieces` in order, cut into tasks: a task takes the next piece unless that would take it past
   * `splitSize`; a piece heavier than that gets a task of its own. Pieces are never split here:
   * a piece is what one reader must read as a whole (a merge needs all of a key range's files).
   */
  def pack[A](pieces: Seq[A], weightOf: A => Long, splitSize: Long): Seq[Seq[A]] = {
    val tasks = Seq.newBuilder[Seq[A]]
    var task = Vector.empty[A]
    var taskWeight = 0L
    pieces.foreach { piece =>
      val w = weightOf(piece)
      if (task.nonEmpty && taskWeight + w > splitSize) {
        tasks += task
        task = Vector.empty
        taskWeight = 0L
      }
      task :+= piece
      taskWeight += w
    }
    if (task.nonEmpty) tasks += task
    tasks.result()
  }
}

object SplitPacking {
  /** Paimon's defaults: 128 mb tasks, 4 mb per file opened. */
  val DefaultTargetSize: Long = 128L << 20
  val DefaultOpenFileCost: Long = 4L << 20
}
