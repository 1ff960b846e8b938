package paimonspark.interop

import java.nio.file.Path
import java.util.Collections.emptyList

import scala.jdk.CollectionConverters._

import org.apache.paimon.data.{BinaryString, BlobData, GenericRow, InternalRow}
import org.apache.paimon.data.variant.GenericVariant
import org.apache.paimon.deletionvectors.{Bitmap64DeletionVector, BitmapDeletionVector, DeletionVector}
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer
import org.apache.paimon.globalindex.btree.BTreeGlobalIndexBuilder
import org.apache.paimon.io.{CompactIncrement, DataFileMeta, DataIncrement}
import org.apache.paimon.manifest.FileKind
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.table.FileStoreTable
import org.apache.paimon.table.sink.{CommitMessage, CommitMessageImpl}
import org.apache.paimon.table.source.DataSplit
import org.apache.paimon.types.{DataType, DataTypes, RowKind}

/** A table Java wrote, by its "db.t" name, and how many rows a batch read of Java's own gives back. */
final case class FeatureTable(name: String, javaRowCount: Int)

/**
 * One small table per Paimon feature our engine does not implement yet, each written by Apache
 * Paimon's Java core into the warehouse of `java` (database `default`), so that tests can hold our
 * engine's refusal of the feature against a table that really has it. Each method creates its table
 * (once per warehouse) and returns it with the row count Java reads from it.
 */
final class JavaFeatureTables(java: JavaPaimon) {
  private val idAndName = Seq("id" -> DataTypes.INT(), "name" -> DataTypes.STRING())

  /**
   * `dv_append`: an unaware-bucket append table (`bucket` = -1) with `deletion-vectors.enabled`.
   * Java appends ids 0..1199 in two commits, then marks every id divisible by 3 deleted the way
   * Paimon's Spark DELETE does: a commit that only adds `index/index-*` files of type
   * DELETION_VECTORS (Java records it as an OVERWRITE snapshot). 400 rows are marked, 800 remain.
   * With `bitmap64`, `dv_append64` and 64-bit vectors (`deletion-vectors.bitmap64`).
   */
  def dvAppend(bitmap64: Boolean = false): FeatureTable = {
    val name = create(if (bitmap64) "dv_append64" else "dv_append", idAndName, Nil, "bucket" -> "-1",
      "deletion-vectors.enabled" -> "true", "deletion-vectors.bitmap64" -> bitmap64.toString)
    (0 until 1200).grouped(600).foreach(ids => java.insert(name, numbered(ids, "row"): _*))
    FeatureTable(name, 1200 - deleteWithDeletionVectors(name, _.getInt(0) % 3 == 0))
  }

  /**
   * `dv_pk`: a primary-key table (`bucket` = 2) with `deletion-vectors.enabled`. Java writes ids
   * 1..100 and compacts them fully; then it upserts ids 1..10 and deletes id 100, and its inline
   * lookup compaction marks the superseded rows of the compacted files in DELETION_VECTORS index files.
   * Last, with `write-only`, ids 201..205 stay in level-0 files, which readers skip until compacted.
   */
  def dvPrimaryKey(): FeatureTable = {
    val name = create("dv_pk", idAndName, Seq("id"), "bucket" -> "2", "deletion-vectors.enabled" -> "true")
    java.insert(name, numbered(1 to 100, "row"): _*)
    java.compact(name)
    java.write(name, numbered(1 to 10, "upserted").map(RowKind.INSERT -> _) :+ (RowKind.DELETE -> Seq(100, "row-100")))
    java.alter(name, SchemaChange.setOption("write-only", "true"))
    java.insert(name, numbered(201 to 205, "level0"): _*)
    FeatureTable(name, 99)
  }

  /** `orc_append`: an append table with `file.format` = `orc`, ten rows in two commits. */
  def orcAppend(): FeatureTable = formatTable("orc_append", "orc", Nil)

  /** `orc_pk`: a primary-key table (`bucket` = 2) with `file.format` = `orc`; the second commit upserts two keys. */
  def orcPrimaryKey(): FeatureTable = formatTable("orc_pk", "orc", Seq("id"))

  /** `avro_append`: an append table with `file.format` = `avro`, ten rows in two commits. */
  def avroAppend(): FeatureTable = formatTable("avro_append", "avro", Nil)

  /** `avro_pk`: a primary-key table (`bucket` = 2) with `file.format` = `avro`; the second commit upserts two keys. */
  def avroPrimaryKey(): FeatureTable = formatTable("avro_pk", "avro", Seq("id"))

  /**
   * `external_paths`: an append table whose data files Java writes outside the table directory,
   * under `dir` (`data-file.external-paths` = its `file:` URI, strategy `round-robin`); their
   * manifest entries carry the absolute path in `_EXTERNAL_PATH`. Six rows in two commits.
   */
  def externalPaths(dir: Path): FeatureTable = {
    val name = create("external_paths", idAndName, Nil, "data-file.external-paths" -> dir.toUri.toString,
      "data-file.external-paths.strategy" -> "round-robin")
    java.insert(name, numbered(1 to 3, "row"): _*)
    java.insert(name, numbered(4 to 6, "row"): _*)
    FeatureTable(name, 6)
  }

  /**
   * `row_tracking`: an append table with `row-tracking.enabled`; Java's commit gives each data file
   * the row id of its first row (`_FIRST_ROW_ID`: 0, then 3). Five rows in two commits.
   */
  def rowTracking(): FeatureTable = {
    val name = create("row_tracking", idAndName, Nil, "row-tracking.enabled" -> "true")
    java.insert(name, numbered(1 to 3, "row"): _*)
    java.insert(name, numbered(4 to 5, "row"): _*)
    FeatureTable(name, 5)
  }

  /**
   * `data_evolution`: a row-tracking table with `data-evolution.enabled`. Java writes three full
   * rows (id, name, note), then rewrites only their `note` column through a write restricted to
   * that column (`withWriteType`), committed at the rows' first row id as Paimon's Spark MERGE INTO
   * on such tables does (`DataEvolutionTableDataWrite`). Both files stay live, the second with
   * `_WRITE_COLS` = [note]; a read merges them by row id into notes "rewritten-1".."rewritten-3".
   */
  def dataEvolution(): FeatureTable = {
    val name = create("data_evolution", idAndName :+ ("note" -> DataTypes.STRING()), Nil,
      "row-tracking.enabled" -> "true", "data-evolution.enabled" -> "true")
    java.insert(name, (1 to 3).map(i => Seq(i, s"row-$i", s"note-$i")): _*)
    val table = java.table(name)
    val firstRowId = table.snapshotManager().latestSnapshot().nextRowId() - 3
    val write = table.newBatchWriteBuilder().newWrite().withWriteType(table.rowType().project(Seq("note").asJava))
    try {
      (1 to 3).foreach(i => write.write(GenericRow.of(BinaryString.fromString(s"rewritten-$i"))))
      commit(table, write.prepareCommit().asScala.toSeq.map(atFirstRowId(_, firstRowId)))
    } finally write.close()
    FeatureTable(name, 3)
  }

  /**
   * `blob_table`: columns id, name and a BLOB `picture`, which Paimon 1.4 allows only with
   * row tracking and data evolution. Java writes the blobs to `.blob` files of their own, next to
   * the other columns' file. Two rows, the pictures being the bytes of "picture-<id>".
   */
  def blobTable(): FeatureTable = {
    val name = create("blob_table", idAndName :+ ("picture" -> DataTypes.BLOB()), Nil,
      "row-tracking.enabled" -> "true", "data-evolution.enabled" -> "true")
    java.insert(name, (1 to 2).map(i => Seq(i, s"row-$i", new BlobData(s"picture-$i".getBytes))): _*)
    FeatureTable(name, 2)
  }

  /** `variant_table`: an append table with a VARIANT column `payload`, two rows built from [[variantJson]]. */
  def variantTable(): FeatureTable = {
    val name = create("variant_table", Seq("id" -> DataTypes.INT(), "payload" -> DataTypes.VARIANT()), Nil)
    java.insert(name, variantJson.zipWithIndex.map { case (json, i) => Seq(i + 1, GenericVariant.fromJson(json)) }: _*)
    FeatureTable(name, 2)
  }

  /** The payloads of `variant_table` in id order, as JSON text in the form Java prints variants. */
  val variantJson: Seq[String] = Seq("""{"a":1,"tags":["x","y"]}""", """{"a":2,"nested":{"ok":true}}""")

  /**
   * `postpone_pk`: a primary-key table with `bucket` = -2 (postpone). Java's core writes every batch
   * to `bucket-postpone/` (`postpone.batch-write-fixed-bucket` = false also keeps Paimon's Spark
   * writer from going to real buckets). Its batch reads skip that bucket until a compaction
   * redistributes it, so Java reads none of the three rows.
   */
  def postponePrimaryKey(): FeatureTable = {
    val name = create("postpone_pk", idAndName, Seq("id"), "bucket" -> "-2",
      "postpone.batch-write-fixed-bucket" -> "false")
    java.insert(name, numbered(1 to 3, "row"): _*)
    FeatureTable(name, 0)
  }

  /**
   * `mod_bucket`: a primary-key table with `bucket` = 4 and `bucket-function.type` = `mod`, so a
   * row lives in bucket floorMod(id, 4) instead of the hash bucket. Keys are [[modBucketIds]].
   */
  def modBucket(): FeatureTable = {
    val name = create("mod_bucket", idAndName, Seq("id"), "bucket" -> "4", "bucket-function.type" -> "mod")
    java.insert(name, numbered(modBucketIds, "row"): _*)
    FeatureTable(name, modBucketIds.size)
  }

  /** The keys of `mod_bucket`: a negative one, and ones that the default hash puts in other buckets. */
  val modBucketIds: Seq[Int] = Seq(-3, 1, 2, 5, 7, 8)

  /**
   * `unknown_index`: a row-tracking, data-evolution table of five rows with a Paimon 1.4 global
   * index: Java's own `BTreeGlobalIndexBuilder` indexes column `name` and commits its files as
   * index entries of type `btree` with `_GLOBAL_INDEX` row ranges.
   */
  def unknownIndex(): FeatureTable = {
    val name = create("unknown_index", idAndName, Nil, "row-tracking.enabled" -> "true",
      "data-evolution.enabled" -> "true")
    java.insert(name, numbered(1 to 5, "row"): _*)
    val table = java.table(name)
    val index = new BTreeGlobalIndexBuilder(table).withIndexField("name")
    val splits = index.scan().orElseThrow().getRight.asScala.toSeq
    commit(table, splits.flatMap(index.build(_, java.ioManager).asScala))
    FeatureTable(name, 5)
  }

  private def create(table: String, columns: Seq[(String, DataType)], primaryKey: Seq[String],
      options: (String, String)*): String = {
    val schema = Schema.newBuilder()
    columns.foreach { case (column, dataType) => schema.column(column, dataType) }
    if (primaryKey.nonEmpty) schema.primaryKey(primaryKey.asJava)
    options.foreach { case (key, value) => schema.option(key, value) }
    val name = s"default.$table"
    java.createTable(name, schema.build())
    name
  }

  private def numbered(ids: Seq[Int], label: String): Seq[Seq[Any]] = ids.map(i => Seq(i, s"$label-$i"))

  /** Ids 1..5, then 4..8 with new names: ten rows in an append table, eight keys in a primary-key table. */
  private def formatTable(table: String, format: String, primaryKey: Seq[String]): FeatureTable = {
    val bucket = if (primaryKey.isEmpty) "-1" else "2"
    val name = create(table, idAndName, primaryKey, "file.format" -> format, "bucket" -> bucket)
    java.insert(name, numbered(1 to 5, "row"): _*)
    java.insert(name, numbered(4 to 8, "second"): _*)
    FeatureTable(name, if (primaryKey.isEmpty) 10 else 8)
  }

  /**
   * Marks the rows `deleted` picks in deletion vectors, as Paimon's Spark DELETE does on an
   * unaware-bucket append table (`PaimonSparkWriter.persistDeletionVectors`): one vector per data
   * file, handed to the partition's `AppendDeleteFileMaintainer`, whose new index files are committed
   * alone. Returns how many rows were marked.
   */
  private def deleteWithDeletionVectors(name: String, deleted: InternalRow => Boolean): Int = {
    val table = java.table(name)
    val snapshot = table.snapshotManager().latestSnapshot()
    val vectors = for {
      split <- table.newSnapshotReader().withSnapshot(snapshot).read().dataSplits().asScala.toSeq
      file <- split.dataFiles().asScala
      vector = deletionVector(table, split, file, deleted) if !vector.isEmpty
    } yield (split.partition(), file.fileName(), vector)
    val indexFiles = table.store().newIndexFileHandler()
    val messages = vectors.groupBy(_._1).map { case (partition, partitionVectors) =>
      val maintainer = BaseAppendDeleteFileMaintainer.forUnawareAppend(indexFiles, snapshot, partition)
      partitionVectors.foreach { case (_, file, vector) => maintainer.notifyNewDeletionVector(file, vector) }
      val (added, removed) = maintainer.persist().asScala.partition(_.kind() == FileKind.ADD)
      val increment = new DataIncrement(emptyList(), emptyList(), emptyList(),
        added.map(_.indexFile()).asJava, removed.map(_.indexFile()).asJava)
      new CommitMessageImpl(partition, maintainer.getBucket, null, increment, CompactIncrement.emptyIncrement())
    }
    commit(table, messages.toSeq)
    vectors.map(_._3.getCardinality).sum.toInt
  }

  /** The rows of one data file that `deleted` picks, read from that file alone so a row's ordinal is its position. */
  private def deletionVector(table: FileStoreTable, split: DataSplit, file: DataFileMeta,
      deleted: InternalRow => Boolean): DeletionVector = {
    val oneFile = DataSplit.builder().withSnapshot(split.snapshotId()).withPartition(split.partition())
      .withBucket(split.bucket()).withBucketPath(split.bucketPath()).withTotalBuckets(split.totalBuckets())
      .withDataFiles(Seq(file).asJava).rawConvertible(true).build()
    // The layout the table's `deletion-vectors.bitmap64` chooses, as Paimon's own writers choose it.
    val vector = if (table.coreOptions().deletionVectorBitmap64()) new Bitmap64DeletionVector() else new BitmapDeletionVector()
    val reader = table.newReadBuilder().newRead().createReader(oneFile)
    var position = 0L
    try reader.forEachRemaining { row =>
      if (deleted(row)) vector.delete(position)
      position += 1
    }
    finally reader.close()
    vector
  }

  /** A commit message whose new files hold existing rows from `firstRowId` on, rather than new rows. */
  private def atFirstRowId(message: CommitMessage, firstRowId: Long): CommitMessage = {
    val m = message.asInstanceOf[CommitMessageImpl]
    val files = m.newFilesIncrement()
    val increment = new DataIncrement(files.newFiles().asScala.map(_.assignFirstRowId(firstRowId)).asJava,
      files.deletedFiles(), files.changelogFiles(), files.newIndexFiles(), files.deletedIndexFiles())
    new CommitMessageImpl(m.partition(), m.bucket(), m.totalBuckets(), increment, m.compactIncrement())
  }

  private def commit(table: FileStoreTable, messages: Seq[CommitMessage]): Unit = {
    val commit = table.newBatchWriteBuilder().newCommit()
    try commit.commit(messages.asJava)
    finally commit.close()
  }
}
