package paimonspark.table.write

import paimonspark.SchemaMismatchException
import paimonspark.format.{FileNamer, TablePaths}
import paimonspark.format.row.BinaryRow
import paimonspark.format.metadata.{FileKind, IndexFileEntry, ManifestEntry, Snapshot, TableSchema}
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.scan.PartitionFilter

/** One file a copy makes: from the source table's storage to its new place in the target's. */
final case class FileCopy(from: String, to: String)

/**
 * Paimon's `copy` of one snapshot of a table into another (`CopyFilesProcedure`), planned on the
 * driver: the live data files of the partitions `partitions` selects, and the index files (deletion
 * vectors, HASH indexes) of their buckets, each under a new name in the target and otherwise with
 * the same metadata. The caller makes the [[files]]; [[commit]] then adds them to the target in one
 * commit that replaces the partitions they belong to, as Paimon's copy does.
 *
 * New names, as Paimon gives them: a name the target once held and deleted must never come back,
 * or the expiry of that deletion would delete the copy. Unlike Paimon's copy, deletion vectors are
 * carried over to the new names of the files they mark, and a file keeps the schema it was written
 * with when the target has it (else it takes the target's, its statistics named by column), so
 * that statistics of files written before a schema change are read as what they are.
 */
final class TableCopy(source: FileStoreTable, snapshot: Snapshot, target: FileStoreTable, partitions: Option[Predicate]) {
  private val store = source.newManifestStore()
  private val partitionTypes = source.schema.partitionRowType.map(_.withNullable(true))
  private val filter = new PartitionFilter(source.schema)
  private def selected(partition: Array[Byte]): Boolean =
    partitions.forall(p => filter.mayMatch(p, BinaryRow.deserialize(partitionTypes, partition)))

  private val sourceData = store.liveFiles(store.dataManifests(snapshot), e => selected(e.partition))
  private val buckets = sourceData.map(e => (e.partitionKey, e.bucket)).toSet
  // As Paimon commits them: the index files of buckets that have data files.
  private val sourceIndex = store.indexFiles(Some(snapshot)).filter(e => buckets((e.partitionKey, e.bucket)))

  private val dataNames = new FileNamer(target.options.dataFilePrefix, "")
  private val indexNames = new FileNamer(TablePaths.IndexFilePrefix, "")
  /** Source data file name to its name in the target, which keeps its extension (the format readers go by). */
  private val renamed: Map[String, String] = sourceData.map { e =>
    val name = e.file.fileName
    val dot = name.lastIndexOf('.')
    name -> (dataNames.next() + (if (dot < 0) "" else name.substring(dot)))
  }.toMap

  private val schemaIds: Map[Long, (Long, Boolean)] = sourceData.map(_.file.schemaId).distinct.map(id => id -> targetSchema(id)).toMap

  /** The data files as the target lists them, ADD entries under their new names. */
  val data: Seq[ManifestEntry] = sourceData.map { e =>
    val (schemaId, namedStats) = schemaIds(e.file.schemaId)
    val statsColumns = if (namedStats) e.file.valueStatsCols.orElse(Some(source.schemaWithId(e.file.schemaId).fieldNames))
      else e.file.valueStatsCols
    // Extra files (file indexes) are not copied, so not listed: readers only lose the skipping they allow.
    e.copy(kind = FileKind.Add, file = e.file.copy(fileName = renamed(e.file.fileName), schemaId = schemaId,
      valueStatsCols = statsColumns, externalPath = None, extraFiles = Nil))
  }

  private val index: Seq[(IndexFileEntry, IndexFileEntry)] = sourceIndex.map { e =>
    e -> e.copy(fileName = indexNames.next(), externalPath = None,
      deletionVectors = e.deletionVectors.map(v => v.copy(dataFile = renamed.getOrElse(v.dataFile, v.dataFile))))
  }

  /** Every file to copy, data and index: all are new to the target. */
  def files: Seq[FileCopy] =
    sourceData.zip(data).map { case (from, to) =>
      FileCopy(source.dataFilePath(from.partition, from.bucket, from.file).toString,
        target.dataFilePath(to.partition, to.bucket, to.file).toString)
    } ++ index.map { case (from, to) =>
      FileCopy(from.externalPath.getOrElse(source.paths.indexFile(from.fileName).toString),
        target.paths.indexFile(to.fileName).toString)
    }

  /** Once the files are there: one OVERWRITE of the partitions they belong to; None when there were none. */
  def commit(commitUser: String): Option[Long] = {
    val changes = index.map(_._2).groupBy(e => (e.partitionKey, e.bucket, e.indexType)).values.map { es =>
      IndexChange(es.head.partition, es.head.bucket, es.head.indexType, es, replaces = Set.empty)
    }.toSeq
    new TableCommit(target, commitUser).commit(data, Some(OverwriteScope.WrittenPartitions), changes).map(_.id)
  }

  /**
   * The target schema files of source schema `id` are read with, and whether their statistics must
   * name their columns: the target's schema of that id when it has the same columns (a target this
   * copy created, or an earlier copy), else the target's latest if it holds all their columns as they
   * are (it then reads the others as nulls). Otherwise the copy is refused before anything is written.
   */
  private def targetSchema(id: Long): (Long, Boolean) = {
    val fields = source.schemaWithId(id).fields
    val same = target.schemaManager.exists(id) && target.schemaWithId(id).fields == fields
    if (same) (id, false)
    else {
      fields.find(f => !target.schema.fields.contains(f)).foreach { f =>
        throw new SchemaMismatchException(f.name, s"copy: files of ${source.name} written with its schema $id have " +
          s"column '${f.name}' (${f.dataType}), which the target ${target.name} does not hold as it is; compact " +
          "the source fully first, so that its files have its latest schema")
      }
      (target.schema.id, true)
    }
  }
}

object TableCopy {
  /**
   * The target's schemas when the copy creates it: the source's versions, all of them (files keep
   * the schema they were written with), without the source's `path`, as Paimon's copy drops it.
   */
  def targetSchemas(source: FileStoreTable): Seq[TableSchema] =
    source.allSchemas.map(s => s.copy(options = s.options - "path"))

  /**
   * Paimon's rules for copying into an existing table (`CopySchemaOperator.checkCompatible`): the
   * same bucket number, file format, primary key and partition columns (here also in the same
   * order, which their serialized keys follow), and every source column among the target's; here
   * also deletion vectors on both or neither.
   */
  def checkCompatible(source: FileStoreTable, target: FileStoreTable, targetName: String): Unit = {
    val (s, t) = (source.schema, target.schema)
    def check(ok: Boolean, what: String): Unit = if (!ok) throw new SchemaMismatchException(targetName,
      s"copy: source table $what is not compatible with existed paimon table $what ($targetName).")
    check(source.options.bucket == target.options.bucket, "bucket")
    check(source.options.fileFormat == target.options.fileFormat, "format")
    // Not among Paimon's checks: a target without them would show the rows the copied vectors delete.
    check(source.options.deletionVectors == target.options.deletionVectors, "deletion-vectors.enabled")
    check(s.primaryKeys == t.primaryKeys, "primary keys")
    check(s.partitionKeys == t.partitionKeys, "partition keys")
    check(s.fields.forall(t.fields.contains), "fields")
  }
}
