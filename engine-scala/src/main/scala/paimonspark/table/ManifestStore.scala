package paimonspark.table

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import paimonspark.PaimonException
import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.fs.FileIO

/**
 * Reads and writes the manifest lists and manifests of one table, and folds manifest entries into
 * the set of live files. Manifest files are immutable: a commit only ever writes new ones.
 */
final class ManifestStore(io: FileIO, paths: TablePaths, schema: TableSchema) {
  private val options = TableOptions(schema.options)
  private val manifestNames = new FileNamer(TablePaths.ManifestPrefix, "")
  private val listNames = new FileNamer(TablePaths.ManifestListPrefix, "")
  private val indexManifestNames = new FileNamer(TablePaths.IndexManifestPrefix, "")
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))

  def readList(name: String): Seq[ManifestFileMeta] =
    MetadataFile.readManifest(io, paths.manifestFile(name))(ManifestAvro.readFileMetas)

  def readManifest(name: String): Seq[ManifestEntry] =
    MetadataFile.readManifest(io, paths.manifestFile(name))(ManifestAvro.readEntries)

  /** All data manifests of a snapshot: its base list followed by its delta list. */
  def dataManifests(snapshot: Snapshot): Seq[ManifestFileMeta] =
    readList(snapshot.baseManifestList) ++ readList(snapshot.deltaManifestList)

  /** The index files a snapshot's index manifest lists (none without one). */
  def indexFiles(snapshot: Option[Snapshot]): Seq[IndexFileEntry] =
    snapshot.flatMap(_.indexManifest).map(name =>
      MetadataFile.readManifest(io, paths.manifestFile(name))(IndexManifestAvro.read)).getOrElse(Nil)

  /** Writes a complete index manifest and returns its name. */
  def writeIndexManifest(entries: Seq[IndexFileEntry]): String = {
    val name = indexManifestNames.next()
    io.writeBytes(paths.manifestFile(name), IndexManifestAvro.write(entries, options.manifestCompression))
    name
  }

  /** Writes a manifest list and returns its name and exact size. */
  def writeList(metas: Seq[ManifestFileMeta]): (String, Long) = {
    val name = listNames.next()
    val bytes = ManifestAvro.writeFileMetas(metas, options.manifestCompression)
    io.writeBytes(paths.manifestFile(name), bytes)
    (name, bytes.length.toLong)
  }

  /** Writes entries into manifests of about `manifest.target-file-size` each. */
  def writeManifests(entries: Seq[ManifestEntry]): Seq[ManifestFileMeta] = {
    if (entries.isEmpty) return Nil
    // A manifest row costs about 300 bytes compressed; roll by count rather than buffering twice.
    val perFile = math.max(1000L, options.manifestTargetFileSize / 300L).toInt
    entries.grouped(perFile).map { chunk =>
      val name = manifestNames.next()
      val bytes = ManifestAvro.writeEntries(chunk, options.manifestCompression)
      io.writeBytes(paths.manifestFile(name), bytes)
      describe(name, bytes.length.toLong, chunk)
    }.toSeq
  }

  private def describe(name: String, size: Long, entries: Seq[ManifestEntry]): ManifestFileMeta = {
    val files = entries.map(_.file)
    val rowIds = files.map(_.firstRowId)
    ManifestFileMeta(
      fileName = name,
      fileSize = size,
      numAddedFiles = entries.count(_.kind == FileKind.Add).toLong,
      numDeletedFiles = entries.count(_.kind == FileKind.Delete).toLong,
      partitionStats = partitionStats(entries),
      schemaId = files.map(_.schemaId).max,
      minBucket = Some(entries.map(_.bucket).min),
      maxBucket = Some(entries.map(_.bucket).max),
      minLevel = Some(files.map(_.level).min),
      maxLevel = Some(files.map(_.level).max),
      minRowId = if (rowIds.forall(_.isDefined)) Some(rowIds.flatten.min) else None,
      maxRowId = if (rowIds.forall(_.isDefined)) Some(files.map(f => f.firstRowId.get + f.rowCount - 1).max) else None)
  }

  /** Full min/max/null-count statistics of the partition values of some entries. */
  private def partitionStats(entries: Seq[ManifestEntry]): SimpleStats = {
    val n = partitionTypes.size
    val rows = entries.groupBy(_.partitionKey).toSeq.map { case (k, es) =>
      (BinaryRow.deserialize(partitionTypes, k.array()), es.size.toLong)
    }
    val mins = new Array[Any](n)
    val maxs = new Array[Any](n)
    val nulls = Array.fill(n)(0L)
    for (i <- 0 until n) {
      val values = rows.collect { case (row, _) if !row.isNullAt(i) => row.values(i) }
      nulls(i) = rows.collect { case (row, count) if row.isNullAt(i) => count }.sum
      for (o <- ValueOrdering.of(partitionTypes(i)) if values.nonEmpty) {
        mins(i) = values.min(o)
        maxs(i) = values.max(o)
      }
    }
    SimpleStats(BinaryRow.serialize(partitionTypes, new GenericInternalRow(mins)),
      BinaryRow.serialize(partitionTypes, new GenericInternalRow(maxs)), Some(nulls.toSeq.map(Some(_))))
  }

  /**
   * Folds entries, in manifest order, into live files: a DELETE cancels the ADD with the same
   * identifier; a DELETE whose ADD was not read (skipped manifest) is kept aside and dropped.
   */
  def liveFiles(manifests: Seq[ManifestFileMeta], keep: ManifestEntry => Boolean = _ => true): Seq[ManifestEntry] = {
    val live = mutable.LinkedHashMap.empty[FileIdentifier, ManifestEntry]
    manifests.foreach { m =>
      readManifest(m.fileName).filter(keep).foreach { e =>
        val id = e.identifier
        if (e.kind == FileKind.Add) {
          if (live.contains(id)) {
            throw new PaimonException(s"Table ${paths.root} is inconsistent: file ${e.file.fileName} is added twice " +
              s"(manifest ${m.fileName})")
          }
          live.put(id, e)
        } else live.remove(id)
      }
    }
    live.values.toSeq
  }

  /** The manifests of a commit's new base list, merged from `manifests` as Paimon merges them ([[ManifestMerge]]). */
  def mergeBase(manifests: Seq[ManifestFileMeta]): Seq[ManifestFileMeta] =
    new ManifestMerge(this, partitionTypes, options.manifestTargetFileSize, options.manifestMergeMinCount,
      options.manifestFullCompactionThreshold).merge(manifests)
}
