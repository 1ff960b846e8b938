package paimonspark.spark.write

import java.nio.ByteBuffer

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{DataWriter, DeltaBatchWrite, DeltaWrite, DeltaWriteBuilder, DeltaWriter,
  DeltaWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, SupportsDelta, WriterCommitMessage}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.format.metadata.FileIdentifier
import paimonspark.spark.SparkTable
import paimonspark.spark.read.{FilePathColumn, PaimonScan, RowIndexColumn}
import paimonspark.table.write.{AppendVectors, OverwriteScope, WrittenFiles}

/**
 * DELETE, UPDATE and MERGE INTO on an append table with deletion vectors, as Paimon does them: rows
 * are identified by their file and position, a deleted or updated row is marked in its file's
 * deletion vector instead of the file being rewritten, and updated and inserted rows go into new
 * files. The driver rewrites the vectors of each partition it marked rows in and commits them with
 * the new files as one OVERWRITE snapshot; a file compacted away meanwhile, or vectors another
 * statement changed, fail the commit.
 */
final class VectorDeltaOperation(table: SparkTable, command: Command) extends SupportsDelta {
  private val files = new StatementScan(table.store, s"$command of ${table.name()}")

  override def command(): Command = command

  override def description(): String = s"deletion-vector $command of ${table.name()}"

  override def rowId(): Array[NamedReference] = Array(FilePathColumn.reference, RowIndexColumn.reference)

  override def representUpdateAsDeleteAndInsert(): Boolean = true

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = files.builder

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = new VectorDeltaWrite(table, files.scan, info.queryId())
  }
}

/** What one task of a [[VectorDeltaOperation]] did: the files it wrote, and the positions it marked per data file path. */
final case class RowsMarked(written: WriterCommitMessage, marked: Map[String, Array[Long]]) extends WriterCommitMessage

/** The write of a [[VectorDeltaOperation]]: new rows through the table's append writers, deletions as marks. */
final class VectorDeltaWrite(table: SparkTable, scan: PaimonScan, queryId: String) extends DeltaWrite with DeltaBatchWrite {
  private val store = table.store

  override def toBatch: DeltaBatchWrite = this
  override def useCommitCoordinator(): Boolean = true

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory = {
    val appends = new AppendWriterFactory(store)
    (partitionId: Int, taskId: Long) => new RowMarker(appends.createWriter(partitionId, taskId))
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val done = messages.toSeq.collect { case m: RowsMarked => m }
    val marked = done.flatMap(_.marked).groupMapReduce(_._1)(_._2.toSeq)(_ ++ _)
    val files = scan.plannedFilesByPath
    val unknown = marked.keys.filterNot(files.contains)
    if (unknown.nonEmpty) throw new IllegalStateException(s"rows of ${unknown.head} were marked, which the scan of " +
      s"${table.name()} did not read")
    val vectors = new AppendVectors(store, scan.snapshot)
    val index = marked.groupBy { case (path, _) => ByteBuffer.wrap(files(path)._1.partitionBytes) }.values.flatMap { inPartition =>
      vectors.rewrite(files(inPartition.head._1)._1.partitionBytes,
        inPartition.map { case (path, positions) => files(path)._2.fileName -> positions }, Set.empty)
    }.toSeq
    val kept = marked.keySet.map(files).map { case (split, file) => FileIdentifier.of(split.partitionBytes, split.bucket, file) }
    new PaimonWrite(table, Some(() => OverwriteScope.Marked(kept)), queryId)
      .commit((done.map(_.written) :+ FilesWritten(WrittenFiles(Nil, Nil, index))).toArray)
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    new PaimonWrite(table, None, queryId).abort(messages.collect { case m: RowsMarked => m.written })
}

/** One task's writer: inserted rows go to an append writer, deleted ones are remembered by position. */
final class RowMarker(appends: DataWriter[InternalRow]) extends DeltaWriter[InternalRow] {
  private val marked = mutable.HashMap.empty[String, mutable.ArrayBuilder.ofLong]

  override def delete(metadata: InternalRow, id: InternalRow): Unit =
    marked.getOrElseUpdate(id.getUTF8String(0).toString, new mutable.ArrayBuilder.ofLong) += id.getLong(1)

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new IllegalStateException("updates arrive as a deletion and an insertion")

  override def insert(row: InternalRow): Unit = appends.write(row)

  override def commit(): WriterCommitMessage = RowsMarked(appends.commit(), marked.map { case (k, v) => k -> v.result() }.toMap)

  override def abort(): Unit = appends.abort()

  override def close(): Unit = appends.close()
}
