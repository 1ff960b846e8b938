package paimonspark.table.iceberg

import paimonspark.format.AtomicType
import paimonspark.format.iceberg.{IcebergDataFile, IcebergEntry, IcebergTypes}
import paimonspark.format.metadata.{DataFileMeta, DeletionVectorRange, IndexFileEntry, IndexManifestAvro, ManifestEntry, Snapshot, TableSchema}
import paimonspark.format.row.BinaryRow
import paimonspark.lsm.KeyRanges
import paimonspark.table.{FileStoreTable, KeyLayout}
import paimonspark.table.scan.SplitPacking

/**
 * Which files of a table Iceberg readers get, and as what manifest entries, by Paimon's rules: every
 * file of an append table; of a primary-key table the files a reader takes as they are, which is its
 * top level, or with deletion vectors (`deletionVectors`) every level above 0 with its vectors as
 * Iceberg position deletes (`puffin`, an offset and length into Paimon's index file).
 */
final class IcebergFiles(table: FileStoreTable, schemaOf: Long => TableSchema) {
  private val options = table.options
  private val partitionCount = table.schema.partitionKeys.size

  /** Whether the table's deletion vectors go to Iceberg: 64-bit vectors and format version 3, as Paimon needs. */
  val deletionVectors: Boolean =
    options.deletionVectors && options.deletionVectorsBitmap64 && options.icebergFormatVersion == 3

  /** Whether a file a commit adds is one Iceberg readers get. */
  def visible(e: ManifestEntry): Boolean =
    !table.isPrimaryKeyTable || (if (deletionVectors) e.file.level > 0 else e.file.level == options.numLevels - 1)

  /** The data files and deletion vectors of `snapshot` for metadata written afresh, as Iceberg snapshot `id`. */
  def afresh(snapshot: Snapshot, id: Long): (Seq[IcebergEntry], Seq[IcebergEntry]) = {
    val store = table.newManifestStore()
    val live = store.liveFiles(store.dataManifests(snapshot))
    val readable = if (!table.isPrimaryKeyTable) live
      else live.filter(e => !deletionVectors || e.file.level > 0).groupBy(e => (e.partitionKey, e.bucket)).values.toSeq
        .flatMap(readAsIs)
    val vectors = if (!deletionVectors) Map.empty[(java.nio.ByteBuffer, Int, String), (IndexFileEntry, DeletionVectorRange)]
      else vectorIndexes(snapshot).flatMap(i => i.deletionVectors.map(v => (i.partitionKey, i.bucket, v.dataFile) -> (i, v)))
        .toMap
    val data = readable.map(e => added(id, dataFile(e)))
    // Paimon does not know the whole index file's size here, and gives Iceberg's default, -1.
    val deletes = readable.flatMap(e => vectors.get((e.partitionKey, e.bucket, e.file.fileName)).map { case (index, v) =>
      added(id, deleteFile(index, v, -1L, table.dataFilePath(e.partition, e.bucket, e.file).toString))
    })
    (data, deletes)
  }

  /** Every deletion vector of `snapshot` as an Iceberg delete file added by `id`. */
  def allDeletionVectors(snapshot: Snapshot, id: Long): Seq[IcebergEntry] = vectorIndexes(snapshot).flatMap { index =>
    index.deletionVectors.map { v =>
      val dataFile = table.paths.dataFile(table.partitionPath(index.partition), index.bucket, v.dataFile).toString
      added(id, deleteFile(index, v, index.fileSize, dataFile))
    }
  }

  def dataFile(e: ManifestEntry): IcebergDataFile = {
    val file = e.file
    val schema = schemaOf(file.schemaId)
    val statsFields = file.valueStatsCols.map(_.map(schema.field)).getOrElse(schema.fields)
    val types = statsFields.map(_.dataType.withNullable(true))
    val stats = file.valueStats
    // Rows of another arity (a writer that kept no bounds) give counts only.
    val arity = java.nio.ByteBuffer.wrap(stats.minValues, 0, 4).getInt
    val (mins, maxs) = if (arity != types.size) (None, None)
      else (Some(BinaryRow.deserialize(types, stats.minValues)), Some(BinaryRow.deserialize(types, stats.maxValues)))
    val counts = stats.nullCounts.getOrElse(Nil)
    val bounds = statsFields.indices.flatMap { i =>
      val f = statsFields(i)
      for (lo <- mins; hi <- maxs if !lo.isNullAt(i) && !hi.isNullAt(i) && IcebergTypes.unsupported(f.dataType).isEmpty &&
        f.dataType.isInstanceOf[AtomicType])
        yield f.id -> (IcebergTypes.bound(f.dataType, lo.get(i, null)), IcebergTypes.bound(f.dataType, hi.get(i, null)))
    }
    IcebergDataFile(IcebergDataFile.Data, table.dataFilePath(e.partition, e.bucket, file).toString,
      IcebergTypes.fileFormat(file.fileName), partitionOf(e.partition), file.rowCount, file.fileSize,
      statsFields.indices.flatMap(i => counts.lift(i).flatten.map(statsFields(i).id -> _)).toMap,
      bounds.map { case (fid, (lo, _)) => fid -> lo }.toMap, bounds.map { case (fid, (_, hi)) => fid -> hi }.toMap)
  }

  private def deleteFile(index: IndexFileEntry, v: DeletionVectorRange, size: Long,
      dataFile: String): IcebergDataFile = {
    val path = table.indexFilePath(index)
    // Iceberg checks the vector it reads against this count: without one, Paimon writes no vectors at all.
    val cardinality = v.cardinality.getOrElse(throw new IllegalStateException(s"the deletion vector of $dataFile in " +
      s"$path has no cardinality, which Iceberg readers check"))
    IcebergDataFile(IcebergDataFile.PositionDeletes, path, "puffin", partitionOf(index.partition), cardinality, size,
      Map.empty, Map.empty, Map.empty, Some(IcebergDataFile.DeletionVector(dataFile, v.offset.toLong, v.length.toLong)))
  }

  private def added(id: Long, file: IcebergDataFile) = IcebergEntry(IcebergEntry.Added, id, id, id, file)

  /** A partition's values (serialized BinaryRow) in Spark's representation, as manifests hold them. */
  def partitionOf(partition: Array[Byte]): Seq[Any] = {
    val row = BinaryRow.deserialize(table.schema.partitionRowType.map(_.withNullable(true)), partition)
    (0 until partitionCount).map(row.get(_, null))
  }

  private def vectorIndexes(snapshot: Snapshot): Seq[IndexFileEntry] = table.newManifestStore().indexFiles(Some(snapshot))
    .filter(_.indexType == IndexManifestAvro.DeletionVectorsIndex)

  /**
   * The files of one primary-key bucket a reader takes as they are, by Paimon's batch split rule
   * (`MergeTreeSplitGenerator.splitForBatch`): all of them when none is on level 0 or has deleted rows and
   * they share one level, or the table has deletion vectors; else, of the key sections packed into splits of
   * `source.split.target-size`, each split that is one file without deleted rows.
   */
  private def readAsIs(bucket: Seq[ManifestEntry]): Seq[ManifestEntry] = {
    def whole(e: ManifestEntry) = e.file.deleteRowCount.forall(_ == 0L)
    if (bucket.forall(e => e.file.level != 0 && whole(e)) &&
      (deletionVectors || bucket.map(_.file.level).distinct.size == 1)) bucket
    else {
      val byFile = bucket.map(e => e.file.fileName -> e).toMap
      val sections = keyRanges.sections(bucket.map(_.file))
      val cost = options.splitOpenFileCost
      val target = options.splitTargetSizeSet.getOrElse(SplitPacking.DefaultTargetSize)
      val packed = SplitPacking(target, cost, 1).pack(sections, (s: Seq[DataFileMeta]) =>
        s.map(f => math.max(f.fileSize, cost)).sum, target)
      packed.map(_.flatten).filter(split => split.size == 1 && whole(byFile(split.head.fileName)))
        .map(split => byFile(split.head.fileName))
    }
  }

  private lazy val keyRanges = new KeyRanges(KeyLayout.of(table.location.toString, table.schema).trimmedKeys
    .map(table.schema.field(_).dataType))
}
