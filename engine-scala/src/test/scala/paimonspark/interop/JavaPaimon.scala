package paimonspark.interop

import java.nio.file.{Files, Path}
import java.time.{Duration, ZoneOffset}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.paimon.catalog.{Catalog, CatalogContext, CatalogFactory, Identifier}
import org.apache.paimon.data.{BinaryString, Blob, Decimal, GenericRow, InternalRow, Timestamp}
import org.apache.paimon.data.variant.Variant
import org.apache.paimon.disk.IOManager
import org.apache.paimon.options.{ExpireConfig, Options}
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.table.FileStoreTable
import org.apache.paimon.table.source.DataSplit
import org.apache.paimon.types.RowKind

/**
 * Apache Paimon's Java core (paimon-bundle, test scope only) over one warehouse: the reference
 * reader and writer that interop suites hold our tables against. Tables are named "db.t", a branch
 * "db.t$branch_b". Rows come back as sorted lists of plain values (String, Integer, Long, ...), the
 * shape [[JavaPaimon.sorted]] gives Spark rows, so the two compare with `==`.
 */
final class JavaPaimon(warehouseUri: String, catalogOptions: Map[String, String]) extends AutoCloseable {
  /** Over a local warehouse. */
  def this(warehouse: Path) = this(warehouse.toString, Map.empty)

  /** Java's catalog itself, for callers that time its operations one by one. */
  val catalog: Catalog = {
    val conf = new Options()
    conf.set("warehouse", warehouseUri)
    catalogOptions.foreach { case (k, v) => conf.set(k, v) }
    // No caching: the other engine changes the tables between calls.
    conf.set("cache-enabled", "false")
    CatalogFactory.createCatalog(CatalogContext.create(conf))
  }
  /** The temporary disk Java's writers, compactions and index builders spill to. */
  lazy val ioManager: IOManager = IOManager.create(Files.createTempDirectory("java-paimon-io").toString)

  /** The table as it is on disk now (loaded afresh on every call). */
  def table(name: String): FileStoreTable = catalog.getTable(Identifier.fromString(name)).asInstanceOf[FileStoreTable]

  def createTable(name: String, schema: Schema): FileStoreTable = {
    catalog.createDatabase(Identifier.fromString(name).getDatabaseName, true)
    catalog.createTable(Identifier.fromString(name), schema, false)
    table(name)
  }

  /** The tables Java's catalog lists in database `db`. */
  def listTables(db: String): Seq[String] = catalog.listTables(db).asScala.toSeq.sorted

  /** Changes a table's schema as Java's catalog does it (`catalog.alterTable`). */
  def alter(name: String, changes: SchemaChange*): Unit =
    catalog.alterTable(Identifier.fromString(name), changes.asJava, false)

  /**
   * Every row of a batch read of a table, a branch or a system table ("db.t$snapshots"), with scan
   * options such as `scan.snapshot-id` or `scan.tag-name`.
   */
  def rows(name: String, options: (String, String)*): Seq[Seq[Any]] = {
    val t = catalog.getTable(Identifier.fromString(name)).copy(options.toMap.asJava)
    val getters = t.rowType().getFields.asScala.zipWithIndex
      .map { case (f, i) => InternalRow.createFieldGetter(f.`type`(), i) }
    val rb = t.newReadBuilder()
    val reader = rb.newRead().createReader(rb.newScan().plan().splits())
    val out = ArrayBuffer.empty[Seq[Any]]
    try reader.forEachRemaining { row =>
      assert(Set(RowKind.INSERT, RowKind.UPDATE_AFTER)(row.getRowKind), s"batch read gave ${row.getRowKind}")
      out += getters.map(g => JavaPaimon.plain(g.getFieldOrNull(row))).toSeq
    }
    finally reader.close()
    JavaPaimon.sorted(out.toSeq)
  }

  /**
   * The changes a streaming read of the table gives from its first snapshot to its latest, each led by
   * its kind ("+I", "-U", "+U", "-D") as `$audit_log` gives them, sorted: what Flink's Paimon source
   * reads, which (unlike Java's batch `incremental-between`) reads changelog files at level 0 of tables
   * whose batch scans skip that level.
   */
  def streamedChanges(name: String): Seq[Seq[Any]] = {
    // Starting from a snapshot id would read with that snapshot's schema: the rows take the latest.
    val t = table(name).copy(Map("scan.mode" -> "from-snapshot", "scan.snapshot-id" -> "1").asJava).copyWithLatestSchema()
    val latest = latestId(name).getOrElse(0L)
    val getters = t.rowType().getFields.asScala.zipWithIndex
      .map { case (f, i) => InternalRow.createFieldGetter(f.`type`(), i) }
    val rb = t.newReadBuilder()
    val scan = rb.newStreamScan()
    val out = ArrayBuffer.empty[Seq[Any]]
    while (Option(scan.checkpoint()).forall(_ <= latest)) {
      val reader = rb.newRead().createReader(scan.plan().splits())
      try reader.forEachRemaining(row =>
        out += row.getRowKind.shortString +: getters.map(g => JavaPaimon.plain(g.getFieldOrNull(row))).toSeq)
      finally reader.close()
    }
    JavaPaimon.sorted(out.toSeq)
  }

  /** The bucket Java reads each row of the table from: row (plain values) -> bucket. */
  def buckets(name: String): Map[Seq[Any], Int] = {
    val t = table(name)
    val getters = t.rowType().getFields.asScala.zipWithIndex
      .map { case (f, i) => InternalRow.createFieldGetter(f.`type`(), i) }
    val rb = t.newReadBuilder()
    rb.newScan().plan().splits().asScala.flatMap { split =>
      val reader = rb.newRead().createReader(split)
      val out = ArrayBuffer.empty[(Seq[Any], Int)]
      try reader.forEachRemaining(row => out += getters.map(g => JavaPaimon.plain(g.getFieldOrNull(row))).toSeq ->
        split.asInstanceOf[DataSplit].bucket())
      finally reader.close()
      out
    }.toMap
  }

  def atSnapshot(name: String, id: Long): Seq[Seq[Any]] = rows(name, "scan.snapshot-id" -> id.toString)
  def atTag(name: String, tag: String): Seq[Seq[Any]] = rows(name, "scan.tag-name" -> tag)

  /** Retained snapshot ids, oldest first, as Java lists them. */
  def snapshotIds(name: String): Seq[Long] =
    table(name).snapshotManager().safelyGetAllSnapshots().asScala.map(_.id()).toSeq.sorted

  def earliestId(name: String): Option[Long] =
    Option(table(name).snapshotManager().earliestSnapshotId()).map(_.longValue)
  def latestId(name: String): Option[Long] = Option(table(name).snapshotManager().latestSnapshotId()).map(_.longValue)

  /** Tag name -> (snapshot id, time retained as `Duration.toString`, or null). */
  def tags(name: String): Map[String, (Long, String)] =
    table(name).tagManager().tagObjects().asScala.map { p =>
      p.getRight -> (p.getLeft.id(), Option(p.getLeft.getTagTimeRetained).map(_.toString).orNull)
    }.toMap

  /** One batch commit; each row is (kind, values) with Scala values (String, Int, Long, ...). */
  def write(name: String, rows: Seq[(RowKind, Seq[Any])]): Unit = {
    val builder = table(name).newBatchWriteBuilder()
    val write = builder.newWrite().withIOManager(ioManager)
    val commit = builder.newCommit()
    try {
      rows.foreach { case (kind, values) =>
        write.write(GenericRow.ofKind(kind, values.map(JavaPaimon.internal): _*))
      }
      commit.commit(write.prepareCommit())
    } finally { write.close(); commit.close() }
  }

  def insert(name: String, rows: Seq[Any]*): Unit = write(name, rows.map(RowKind.INSERT -> _))

  /**
   * One batch commit of inserts into the buckets given, as Paimon's Flink sink writes a
   * cross-partition table once its assigner chose each row's bucket.
   */
  def insertIntoBuckets(name: String, rows: (Seq[Any], Int)*): Unit = {
    val builder = table(name).newBatchWriteBuilder()
    val write = builder.newWrite().withIOManager(ioManager)
    val commit = builder.newCommit()
    try {
      rows.foreach { case (values, bucket) => write.write(GenericRow.of(values.map(JavaPaimon.internal): _*), bucket) }
      commit.commit(write.prepareCommit())
    } finally { write.close(); commit.close() }
  }

  /** A full compaction of every bucket that has data, committed as one COMPACT snapshot. */
  def compact(name: String): Unit = {
    val t = table(name)
    // Every bucket with files, at level 0 too: a batch scan of a table with deletion vectors skips that level.
    val buckets = t.store().newScan().plan().files().asScala.map(e => (e.partition(), e.bucket())).distinct
    val builder = t.newBatchWriteBuilder()
    val write = builder.newWrite().withIOManager(ioManager)
    val commit = builder.newCommit()
    try {
      buckets.foreach { case (partition, bucket) => write.compact(partition, bucket, true) }
      commit.commit(write.prepareCommit())
    } finally { write.close(); commit.close() }
  }

  /**
   * Java's own snapshot expiry. By default decided by count: with a day of time retention no snapshot
   * of a test is old enough to go for its age, so exactly those beyond `retainMax` go.
   */
  def expire(name: String, retainMax: Int, retainMin: Int, timeRetained: Duration = Duration.ofDays(1),
      changelogRetainMax: Option[Int] = None): Int = {
    val config = ExpireConfig.builder().snapshotRetainMax(retainMax).snapshotRetainMin(retainMin)
      .snapshotTimeRetain(timeRetained).snapshotMaxDeletes(Int.MaxValue)
    changelogRetainMax.foreach(n => config.changelogRetainMax(n))
    table(name).newExpireSnapshots().config(config.build()).expire()
  }

  /** Java's changelog expiry, decided by count as [[expire]] is. */
  def expireChangelogs(name: String, retainMax: Int, retainMin: Int): Int =
    table(name).newExpireChangelog().config(ExpireConfig.builder().snapshotRetainMax(retainMax)
      .snapshotRetainMin(retainMin).snapshotTimeRetain(Duration.ofDays(1)).snapshotMaxDeletes(Int.MaxValue).build())
      .expire()

  /** A table's local directory (local warehouses only). */
  private def dir(name: String): Path = {
    val id = Identifier.fromString(name)
    java.nio.file.Paths.get(warehouseUri).resolve(s"${id.getDatabaseName}.db").resolve(id.getTableName)
  }

  /** A copy of table "db.t" as "db.t_<suffix>" (returned), for Java to run on it what we run on the original. */
  def twin(name: String, suffix: String): String = {
    val (from, to) = (dir(name), dir(s"${name}_$suffix"))
    Files.walk(from).iterator().asScala.foreach(p => Files.copy(p, to.resolve(from.relativize(p).toString)))
    s"${name}_$suffix"
  }

  /** Every file of a table by path relative to the table, with the contents of the snapshot and changelog hints. */
  def layout(name: String): Map[String, String] = {
    val root = dir(name)
    Files.walk(root).iterator().asScala.filter(Files.isRegularFile(_))
      .filterNot(_.getFileName.toString.endsWith(".crc"))
      .map(p => root.relativize(p).toString -> (if (Set("snapshot", "changelog")(p.getParent.getFileName.toString) &&
        Set("EARLIEST", "LATEST")(p.getFileName.toString)) Files.readString(p).trim else "")).toMap
  }

  override def close(): Unit = {
    catalog.close()
    ioManager.close()
  }
}

object JavaPaimon {
  /**
   * A Java Paimon field as a plain value, the way Spark's Row gives it. Timestamps keep Spark's
   * microseconds: Java's `$tags.create_time` carries the tag file's nanoseconds as they are. A
   * variant comes back as its JSON text, a blob as its bytes.
   */
  def plain(v: Any): Any = v match {
    case s: BinaryString => s.toString
    case variant: Variant => variant.toJson(ZoneOffset.UTC)
    case b: Blob => b.toData
    case d: Decimal => d.toBigDecimal
    case t: Timestamp => t.toLocalDateTime.truncatedTo(java.time.temporal.ChronoUnit.MICROS)
    case other => other
  }

  def internal(v: Any): AnyRef = v match {
    case s: String => BinaryString.fromString(s)
    case other => other.asInstanceOf[AnyRef]
  }

  def sorted(rows: Seq[Seq[Any]]): Seq[Seq[Any]] = rows.sortBy(_.mkString("\u0001"))
}
