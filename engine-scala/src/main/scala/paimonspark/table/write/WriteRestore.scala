package paimonspark.table.write

import paimonspark.InvalidOptionException
import paimonspark.format.metadata.Snapshot
import paimonspark.table.{FileStoreTable, TableOptions}
import paimonspark.table.scan.{DataSplit, ScanPlanner}

/**
 * What a write to buckets continues from, the live files of the snapshot it starts from
 * (`snapshotId`): each bucket's next sequence number (by [[PrimaryKeyWriter.sequenceKey]]), and the
 * bucket count each partition's files were written with (`_TOTAL_BUCKETS`).
 */
final case class WriteRestore(snapshotId: Option[Long], nextSequences: Map[String, Long], partitionBuckets: Map[String, Int]) {
  /** For a write that replaces the partitions it writes: what they held binds it to no bucket count. */
  def replacingPartitions: WriteRestore = copy(partitionBuckets = Map.empty)

  /** Paimon's check: a partition's files share one bucket count, which only an overwrite changes. */
  def requireBucketCount(table: FileStoreTable, partition: Array[Byte], buckets: Int): Unit =
    partitionBuckets.get(RowBucketer.partitionKey(partition)).foreach { previous =>
      if (buckets > 0 && previous != buckets) {
        val where = if (table.schema.partitionKeys.isEmpty) "table"
          else table.partitionPath(partition).stripSuffix("/").split('/').mkString("partition {", ", ", "}")
        throw new InvalidOptionException(TableOptions.Bucket, s"table ${table.name}: Try to write $where with a new " +
          s"bucket num $buckets, but the previous bucket num is $previous. Please switch to batch mode, and perform " +
          "INSERT OVERWRITE (or CALL sys.rescale) to rescale current data layout first.")
      }
    }
}

object WriteRestore {
  /** A write that continues from nothing: a table's first, or one that replaces what it writes. */
  val Empty: WriteRestore = WriteRestore(None, Map.empty, Map.empty)

  def of(table: FileStoreTable): WriteRestore = {
    val snapshot = table.snapshotManager.latest()
    of(snapshot, ScanPlanner.forMetadata(table).plan(snapshot, None))
  }

  /** What the live files of `snapshot`, as `splits`, leave a write to continue from. */
  def of(snapshot: Option[Snapshot], splits: Seq[DataSplit]): WriteRestore =
    WriteRestore(snapshot.map(_.id),
      splits.map(s => PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket) -> (s.files.map(_.maxSequenceNumber).max + 1)).toMap,
      splits.filter(_.totalBuckets > 0).map(s => RowBucketer.partitionKey(s.partitionBytes) -> s.totalBuckets).toMap)
}
