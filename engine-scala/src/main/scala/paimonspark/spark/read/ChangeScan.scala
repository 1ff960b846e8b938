package paimonspark.spark.read

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{KeyValueFields, SparkTypes}
import paimonspark.format.metadata.{DeletionFile, TableSchema}
import paimonspark.fs.FileIO
import paimonspark.lsm.KeyValue
import paimonspark.table.FileStoreTable
import paimonspark.table.changes.CommitChanges

/**
 * One commit's file of changes, with what every row read from it carries, and the deletion vector
 * whose rows it leaves out (a file of a snapshot's state, read as its changes).
 */
final case class ChangeFile(path: String, size: Long, schemaId: Long, partitionValues: InternalRow, snapshotId: Long,
    commitMicros: Long, deletion: Option[DeletionFile] = None)

/** Change files read by one task, in commit order. */
final case class ChangeSplit(files: Array[ChangeFile]) extends InputPartition

object ChangeSplit {
  /** `files` packed into tasks by size ([[ReadPacking]]), each task's in the order given. */
  def packed(table: FileStoreTable, files: Seq[ChangeFile]): Seq[ChangeSplit] = {
    val packing = ReadPacking.of(table)
    packing.packAll(files, (f: ChangeFile) => packing.weight(f.size, 1)).map(task => ChangeSplit(task.toArray))
  }
}

/**
 * The columns a read of changes adds to the table's: a leading `rowkind` (Paimon's `$audit_log`),
 * or Spark's trailing `_change_type`, `_commit_version` and `_commit_timestamp` (its changelog API).
 */
final case class ChangeColumns(leading: Seq[StructField], trailing: Seq[StructField])

object ChangeColumns {
  val RowKind = "rowkind"
  val ChangeType = "_change_type"
  val CommitVersion = "_commit_version"
  val CommitTimestamp = "_commit_timestamp"

  /** Plain table columns: a table read over a range of changes. */
  val None: ChangeColumns = ChangeColumns(Nil, Nil)
  val AuditLog: ChangeColumns = ChangeColumns(Seq(StructField(RowKind, StringType, nullable = false)), Nil)
  val SparkChangelog: ChangeColumns = ChangeColumns(Nil, Seq(StructField(ChangeType, StringType, nullable = false),
    StructField(CommitVersion, LongType, nullable = false), StructField(CommitTimestamp, TimestampType, nullable = false)))

  private val ShortStrings = Array("+I", "-U", "+U", "-D").map(UTF8String.fromString)
  private val SparkChangeTypes = Array("insert", "update_preimage", "update_postimage", "delete").map(UTF8String.fromString)

  def rowKindText(kind: Byte): UTF8String = ShortStrings(kind)

  /** The value of an added column for a row of `kind` from a commit. */
  def value(name: String, kind: Byte, file: ChangeFile): Any = name match {
    case RowKind => ShortStrings(kind)
    case ChangeType => SparkChangeTypes(kind)
    case CommitVersion => file.snapshotId
    case CommitTimestamp => file.commitMicros
  }
}

/**
 * A batch read of the files that hold a range of commits' changes, each row as it was written,
 * with its row kind (`_VALUE_KIND` of a primary-key table's files; every row of an append table is
 * an insert). Without added columns, retractions (-U, -D) are left out, as Paimon's batch reads
 * of a range do. Filters skip files and row groups only: every row is independent of the others.
 */
final class ChangeScan(table: FileStoreTable, planCommits: () => Seq[CommitChanges], added: ChangeColumns,
    required: StructType, filters: Seq[Filter]) extends Scan with Batch {

  private val schema = table.schema
  private val partitionNames = schema.partitionKeys.toSet

  override def readSchema(): StructType = required
  override def toBatch: Batch = this
  override def description(): String =
    s"PaimonChangeScan ${table.location} [${required.fieldNames.mkString(", ")}] filters: ${filters.mkString(", ")}"

  /** Planned once per scan. */
  private lazy val commits = planCommits()

  override def planInputPartitions(): Array[InputPartition] = {
    val files = commits.flatMap { c =>
      c.splits.flatMap(split => split.files.map { f =>
        ChangeFile(table.dataFilePath(split.partitionBytes, split.bucket, f).toString, f.fileSize, f.schemaId, split.partition,
          c.snapshot.id, c.snapshot.timeMillis * 1000L, split.deletionFiles.get(f.fileName))
      })
    }
    ChangeSplit.packed(table, files).toArray
  }

  // Files with deletion vectors are read whole: a skipped row group would shift the positions after it.
  override def createReaderFactory(): PartitionReaderFactory =
    ChangeReaderFactory.of(table, required, added, if (commits.exists(_.splits.exists(_.deletionFiles.nonEmpty))) Nil
      else filters, commits.flatMap(_.splits.flatMap(_.files.map(_.schemaId))).distinct.map(table.schemaWithId))
}

object ChangeReaderFactory {
  /** The reader of change files written with `schemas`, as rows of `required`. */
  def of(table: FileStoreTable, required: StructType, added: ChangeColumns, filters: Seq[Filter],
      schemas: Iterable[TableSchema]): ChangeReaderFactory = {
    val schema = table.schema
    val partitionNames = schema.partitionKeys.toSet
    val addedNames = (added.leading ++ added.trailing).map(_.name).toSet
    val dataColumns = required.fieldNames.toSeq.filterNot(n => partitionNames(n) || addedNames(n))
    val keyValueFiles = table.isPrimaryKeyTable
    val readFields = (if (keyValueFiles) Seq(KeyValueFields.ValueKind) else Nil) ++ dataColumns.map(schema.field)
    val dataFilters = filters.filter(_.references.forall(a => dataColumns.contains(a)))
    val fileFields = if (keyValueFiles) SchemaReaders.keyValueFields(table.location.toString) _ else SchemaReaders.appendFields _
    val readers = SchemaReaders.build(table, readFields, fileFields, new StructType(), dataFilters, schemas)
    new ChangeReaderFactory(new SparkFileReader(readers), SparkTypes.physical(SparkTypes.toSparkStruct(readFields,
      withFieldIds = false)), required, schema.partitionKeys, added, keyValueFiles, table.io)
  }
}

/**
 * Reads [[ChangeSplit]]s: each output column is a file column, a partition value or an added column
 * computed from the row's kind and its commit.
 */
final class ChangeReaderFactory(files: SparkFileReader, fileRead: StructType, output: StructType,
    partitionKeys: Seq[String], added: ChangeColumns, keyValueFiles: Boolean, io: FileIO)
    extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[ChangeSplit]
    val addedNames = (added.leading ++ added.trailing).map(_.name)
    val extras = output.fieldNames.filter(addedNames.contains)
    val width = fileRead.length
    // Ordinals into (file row, partition values, added values).
    val ordinals = output.fieldNames.toSeq.map { n =>
      if (extras.contains(n)) width + partitionKeys.size + extras.indexOf(n)
      else if (partitionKeys.contains(n)) width + partitionKeys.indexOf(n)
      else fileRead.fieldIndex(n)
    }
    val projected = ProjectingInternalRow(output, ordinals)
    val extraRow = new GenericInternalRow(extras.length)
    val joined = new JoinedRow()
    val withExtras = new JoinedRow()
    val keepRetractions = addedNames.nonEmpty
    val kindOrdinal = if (keyValueFiles) fileRead.fieldIndex(KeyValueFields.ValueKind.name) else -1

    new PartitionReader[InternalRow] {
      private val remaining = split.files.iterator
      private var file: ChangeFile = _
      private var rows: paimonspark.format.DataFileReader.Rows = _
      // The rows of the open file its deletion vector does not mark.
      private var live: Iterator[InternalRow] = Iterator.empty
      private val vectors = new DeletedRows.TaskVectors

      override def next(): Boolean = {
        while (true) {
          while (live.hasNext) {
            val row = live.next()
            val kind = if (kindOrdinal < 0) KeyValue.Insert else row.getByte(kindOrdinal)
            if (keepRetractions || kind == KeyValue.Insert || kind == KeyValue.UpdateAfter) {
              var i = 0
              while (i < extras.length) { extraRow.update(i, ChangeColumns.value(extras(i), kind, file)); i += 1 }
              projected.project(joined(row, withExtras(file.partitionValues, extraRow)))
              return true
            }
          }
          if (rows != null) rows.close()
          rows = null
          live = Iterator.empty
          if (!remaining.hasNext) return false
          file = remaining.next()
          rows = files.open(new Path(file.path), file.size, file.schemaId)
          live = file.deletion.fold[Iterator[InternalRow]](rows)(d => vectors(d, io).live(rows))
        }
        false
      }

      override def get(): InternalRow = projected

      override def close(): Unit = if (rows != null) rows.close()
    }
  }
}
