package paimonspark.lsm

import paimonspark.format.metadata.DataFileMeta

/**
 * A sorted run of one bucket: files whose key ranges do not overlap. Every level-0 file is a run of
 * its own; each level above 0 is a single run.
 */
final case class SortedRun(level: Int, files: Seq[DataFileMeta]) {
  def totalSize: Long = files.map(_.fileSize).sum
}

object SortedRun {
  /**
   * The runs of a bucket, newest first, as Paimon's `Levels` orders them: level-0 files by
   * descending max sequence number, then levels 1, 2, ... upwards.
   */
  def of(files: Seq[DataFileMeta]): Seq[SortedRun] = {
    val (level0, upper) = files.partition(_.level == 0)
    val newestFirst = level0.sortBy(f => (-f.maxSequenceNumber, f.minSequenceNumber, f.fileName))
    newestFirst.map(f => SortedRun(0, Seq(f))) ++
      upper.groupBy(_.level).toSeq.sortBy(_._1).map { case (level, fs) => SortedRun(level, fs) }
  }
}

/** A pick of the compaction picker: these files, merged into one run at `outputLevel`. */
final case class CompactUnit(outputLevel: Int, files: Seq[DataFileMeta])
