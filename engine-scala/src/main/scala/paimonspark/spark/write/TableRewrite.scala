package paimonspark.spark.write

import java.util.UUID

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.connector.write.DataWriterFactory
import org.apache.spark.sql.functions.lit

import paimonspark.format.metadata.{ManifestEntry, SnapshotJson}
import paimonspark.spark.SparkSchemas
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.write.{IndexChange, OverwriteScope, TableCommit}

/**
 * What the procedures that rewrite a table's partitions (sort compaction, rescale) share: the rows
 * of a DataFrame written by a table's own writers, one writer per Spark partition, and committed in
 * one OVERWRITE snapshot; files of a failed write or commit are deleted, as nothing references them.
 */
object TableRewrite {
  /** The new snapshot's id and the data files it added. */
  def commit(table: FileStoreTable, rows: DataFrame, writers: DataWriterFactory, scope: OverwriteScope,
      index: Seq[IndexChange] = Nil): (Option[Long], Seq[ManifestEntry]) = {
    val written = rows.queryExecution.toRdd.mapPartitionsWithIndex { (i, partition) =>
      val writer = writers.createWriter(i, 0L)
      try {
        partition.foreach(writer.write)
        Iterator(writer.commit())
      } catch {
        case e: Throwable =>
          writer.abort()
          throw e
      }
    }.collect().toSeq.collect { case f: FilesWritten => f.files }
    val added = written.flatMap(_.data)
    try (new TableCommit(table, UUID.randomUUID().toString).commit(added, Some(scope), written.flatMap(_.index) ++ index,
      identifier = SnapshotJson.BatchCommitIdentifier).map(_.id), added)
    catch {
      case e: Throwable =>
        added.foreach(e => table.io.delete(table.dataFilePath(e.partition, e.bucket, e.file), recursive = false))
        (written.flatMap(_.index) ++ index).flatMap(_.entries)
          .foreach(e => table.io.delete(table.paths.indexFile(e.fileName), recursive = false))
        throw e
    }
  }

  def quoted(frame: DataFrame, name: String): Column = frame.col(s"`${name.replace("`", "``")}`")

  /** A selection of partitions (equalities, nulls, and/or: what PartitionSelection makes) as a column. */
  def partitionColumn(frame: DataFrame, table: FileStoreTable, p: Predicate): Column = p match {
    case Predicate.Constant(b) => lit(b)
    case Predicate.IsNull(i) => quoted(frame, table.schema.fieldNames(i)).isNull
    case Predicate.Compare(Predicate.Eq, i, value) =>
      val name = table.schema.fieldNames(i)
      quoted(frame, name) === lit(CatalystTypeConverters.convertToScala(value, SparkSchemas.sparkSchema(table.schema)(name).dataType))
    case Predicate.And(l, r) => partitionColumn(frame, table, l) && partitionColumn(frame, table, r)
    case Predicate.Or(l, r) => partitionColumn(frame, table, l) || partitionColumn(frame, table, r)
    case other => throw new IllegalArgumentException(s"not a partition selection: $other")
  }
}
