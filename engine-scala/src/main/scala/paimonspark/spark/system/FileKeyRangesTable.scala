package paimonspark.spark.system

import org.apache.spark.sql.types._

import paimonspark.format.metadata.{DataFileMeta, TableSchema}
import paimonspark.table.FileStoreTable

/** `t$file_key_ranges`: the live data files with their key ranges and first row id, without `$files`' stats. */
final class FileKeyRangesTable(table: FileStoreTable, displayName: String)
    extends DataFilesTable(table, displayName, Seq(StructField("first_row_id", LongType))) {
  override protected def ownCells(f: DataFileMeta, fileSchema: TableSchema): Seq[Any] = Seq(Cells.long(f.firstRowId))
}
