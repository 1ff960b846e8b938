package paimonspark.lsm

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.StructType

import paimonspark.format.DataFileReader
import paimonspark.format.metadata.{DataFileMeta, DeletionVector}

/** Where a lookup found a key: the file, the row's position in it, and a copy of the row. */
final case class LookupHit(file: String, position: Long, row: InternalRow)

/**
 * Looks keys up in one level of a bucket (one sorted run), keys asked in ascending order, as a
 * compaction meets them. Files are skipped by their key ranges without being opened, and an open
 * file is read forward only: a lookup costs the files that hold the keys asked, one file open at a
 * time, never the level in memory. Rows a file's deletion vector marks (`vectors`) are not there.
 */
final class LevelLookup(files: Seq[DataFileMeta], ranges: KeyRanges, reader: DataFileReader, bucketDir: Path,
    rowSchema: StructType, keyOrdinals: Seq[Int], vectors: String => Option[DeletionVector] = _ => None)
    extends AutoCloseable {

  private val toKey = UnsafeProjection.create(keyOrdinals.map(i => BoundReference(i, rowSchema(i).dataType, nullable = false)))
  // Every row of an open file up to the key is compared: directly against the asked row, which has
  // the same layout, as numbers when the key is one integral column, else by generated code.
  private val integral = IntegralKey.of(rowSchema, keyOrdinals)
  private val rowOrdering = GenerateOrdering.generate(keyOrdinals.map(i =>
    SortOrder(BoundReference(i, rowSchema(i).dataType, nullable = false), Ascending)))
  // Each file's key range, decoded once.
  private val remaining = ranges.byMinKey(files).map(f => (ranges.minKey(f), ranges.maxKey(f), f)).iterator.buffered
  private var rows: DataFileReader.Rows = _
  private var head: InternalRow = _
  private var file: DataFileMeta = _
  private var vector: Option[DeletionVector] = None
  private var position = -1L

  /** The version of `key` (a row of the merge's layout, `rowSchema`) this level holds, as a copy, if any. */
  def find(key: InternalRow): Option[InternalRow] = locate(key).map(_.row)

  /** Where this level holds `key`, if it does. */
  def locate(key: InternalRow): Option[LookupHit] = {
    lazy val k = toKey(key)
    var found: Option[LookupHit] = None
    var done = false
    while (!done) {
      if (head == null) {
        // Files wholly below the key are done with; the key lies in the first file not below it, if any.
        while (remaining.hasNext && ranges.ordering.lt(remaining.head._2, k)) remaining.next()
        if (!remaining.hasNext || ranges.ordering.gt(remaining.head._1, k)) done = true
        else open(remaining.next()._3)
      } else {
        val c = integral match {
          case Some(n) => java.lang.Long.compare(n.of(head), n.of(key))
          case None => rowOrdering.compare(head, key)
        }
        if (c < 0) advance()
        else {
          if (c == 0) found = Some(LookupHit(file.fileName, position, head.copy()))
          done = true
        }
      }
    }
    found
  }

  private def open(next: DataFileMeta): Unit = {
    close()
    file = next
    vector = vectors(next.fileName)
    position = -1L
    rows = reader.open(new Path(bucketDir, next.fileName), next.fileSize, next.schemaId)
    advance()
  }

  /** The next live row of the open file; at its end, the file closes and the next one waits unopened. */
  private def advance(): Unit = {
    do {
      head = if (rows != null && rows.hasNext) rows.next() else null
      position += 1
    } while (head != null && vector.exists(_.isDeleted(position)))
    if (head == null) close()
  }

  override def close(): Unit = {
    if (rows != null) rows.close()
    rows = null
  }
}
