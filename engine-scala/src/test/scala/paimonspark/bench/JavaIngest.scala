package paimonspark.bench

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.security.MessageDigest
import java.time.LocalDate

import scala.jdk.CollectionConverters._
import scala.util.Try

import one.profiler.AsyncProfiler
import org.apache.paimon.catalog.{CatalogContext, CatalogFactory, Identifier}
import org.apache.paimon.data.{BinaryRow, BinaryString, Decimal, GenericRow, InternalRow, Timestamp}
import org.apache.paimon.data.serializer.InternalRowSerializer
import org.apache.paimon.disk.IOManager
import org.apache.paimon.memory.MemorySegment
import org.apache.paimon.options.Options
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.table.FileStoreTable
import org.apache.paimon.types.{DataTypes, RowType}
import org.apache.spark.sql.catalyst.expressions.XXH64

/**
 * The upsert-ingest workload of `bench/upsert_ingest.py`, written by Apache Paimon's Java core (the
 * reference implementation) instead of our engine: the same table shape and column types, keys and value
 * formulas (recomputed here), the same batches, one batch commit each. Prints one JSON line with the CPU
 * seconds of this JVM over the timed batches, and of its JIT compiler threads and its garbage collector's
 * threads meanwhile, and what compaction did in each batch (CompactionWork), after an untimed warm-up of
 * the same workload at a tenth of the size into a table of its own. Each batch's rows are built before its
 * timing starts, packed into one array (PackedRows). The preload is compacted fully before the timed
 * batches; with `full-compaction` every batch ends with a full compaction of every bucket, as Paimon's
 * writers do at the end of input. Optionally only the first LIMIT batches are written, into a table with
 * more OPTIONS (`k=v,k=v`, such as `deletion-vectors.enabled=true`, which names the table
 * `java_dv_<producer>`). `write-only=true` is set after the preload's compaction, which a write-only
 * writer refuses. With `-Dpaimonspark.bench.profile=FILE`, `-Dpaimonspark.bench.profiler=AGENT` and
 * `-Dpaimonspark.bench.profilerStarts=COMMAND|COMMAND` (bench/cpu_profile.java_options), async-profiler
 * (its native agent) samples the CPU of the batches into FILE as collapsed stacks, started by the first
 * of its start commands this machine allows (bench/write_profile.py --java, which drops the samples of
 * building their rows).
 * bench/java_writer.py starts this JVM with the heap of the Spark JVM it is compared with.
 *
 * usage: JavaIngest WAREHOUSE PRODUCER ROWS BATCHES BUCKETS [LIMIT [OPTIONS]]
 */
object JavaIngest {
  private val Stride = 2654435761L
  /** Threads by the name Linux gives them (15 characters at most): HotSpot's JIT compilers, and G1's. */
  private[bench] val JitThreads = Seq("C1 CompilerThre", "C2 CompilerThre")
  private val GcThreads = Seq("GC Thread", "G1 ")

  def main(args: Array[String]): Unit = {
    val Array(warehouse, producer, rowsText, batchesText, bucketsText) = args.take(5)
    val (rows, batches, buckets) = (rowsText.toLong, batchesText.toInt, bucketsText.toInt)
    val limit = args.lift(5).map(_.toInt).getOrElse(batches)
    val (later, extra) = args.lift(6).toSeq.flatMap(_.split(",")).map(_.split("=", 2)).map(kv => kv(0) -> kv(1))
      .partition(_._1 == "write-only")
    val options = new Options()
    options.set("warehouse", warehouse)
    val catalog = CatalogFactory.createCatalog(CatalogContext.create(options))
    catalog.createDatabase("default", true)
    val dv = extra.contains("deletion-vectors.enabled" -> "true")
    val name = s"java_${if (dv) "dv_" else ""}$producer".replace('-', '_')
    // Spark's TIMESTAMP, ours' `ts`, is Paimon's TIMESTAMP_WITH_LOCAL_TIME_ZONE(6).
    val schema = Schema.newBuilder()
      .column("id", DataTypes.BIGINT().notNull()).column("version", DataTypes.INT()).column("qty", DataTypes.INT())
      .column("price", DataTypes.DOUBLE()).column("score", DataTypes.DOUBLE()).column("customer", DataTypes.STRING())
      .column("note", DataTypes.STRING()).column("day", DataTypes.DATE())
      .column("ts", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)).column("amount", DataTypes.DECIMAL(12, 2))
      .primaryKey("id")
      .option("bucket", buckets.toString).option("changelog-producer", producer).options(extra.toMap.asJava).build()
    val rowType = RowType.of(schema.fields().asScala.map(_.`type`()).toSeq: _*)
    val io = IOManager.create(Files.createTempDirectory("java-ingest").toString)
    val bean = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]

    /**
     * Writes the workload of `rows` into a new table; returns it, its CPU and wall nanoseconds, and the CPU
     * seconds of the JIT compilers and of the garbage collector meanwhile.
     */
    def ingest(id: Identifier, rows: Long, profile: Option[Sampling]
              ): (FileStoreTable, Long, Long, Double, Double) = {
      val batch = rows / batches
      val updates = batch / 2
      val fresh = batch - updates
      val preload = rows - batches * fresh
      catalog.createTable(id, schema, false)
      def table = catalog.getTable(id).asInstanceOf[FileStoreTable]

      def commit(rowsOf: Iterator[InternalRow], compactAll: Boolean): Unit = {
        val builder = table.newBatchWriteBuilder()
        val write = builder.newWrite().withIOManager(io)
        val commit = builder.newCommit()
        try {
          rowsOf.foreach(r => write.write(r))
          if (compactAll) (0 until buckets).foreach(b => write.compact(BinaryRow.EMPTY_ROW, b, true))
          commit.commit(write.prepareCommit())
        } finally { write.close(); commit.close() }
      }

      // Compacted, so no producer turns the preload into changelog on its first batch. Untimed: its rows
      // are made as they are written.
      commit(Iterator.range(0, preload.toInt).map(i => row(i.toLong, 0)), compactAll = true)
      later.foreach { case (k, v) => catalog.alterTable(id, SchemaChange.setOption(k, v), false) }
      var (cpu, wall, jit, gc) = (0L, 0L, 0.0, 0.0)
      (0 until limit).foreach { b =>
        val existing = preload + b * fresh
        val offset = (b + 1).toLong * 7919L * 104729L % existing
        val rowsOfBatch = new PackedRows(rowType, batch.toInt, { i =>
          val key = if (i < updates) (i * Stride + offset) % existing else existing + i - updates
          row(key, b + 1)
        })
        // No System.gc() before a batch: it had G1 shrink the heap and grow it again inside the timing.
        // The writes' garbage is collected inside them, by the GC threads whose CPU is reported apart.
        if (b == 0) profile.foreach(_.start())
        val (c0, w0, j0, g0) = (bean.getProcessCpuTime, System.nanoTime(), threadCpu(JitThreads), threadCpu(GcThreads))
        commit(rowsOfBatch.rows, compactAll = producer == "full-compaction")
        cpu += bean.getProcessCpuTime - c0
        jit += threadCpu(JitThreads) - j0
        gc += threadCpu(GcThreads) - g0
        wall += System.nanoTime() - w0
      }
      profile.foreach(_.stop())
      (table, cpu, wall, jit, gc)
    }

    // Untimed: the same workload at a tenth of the size first, so that the JIT has compiled the
    // write, flush and compaction paths before the timed batches, as the Spark bench's warm-up does.
    ingest(Identifier.create("default", s"${name}_warmup"), rows / 10, None)
    val profile = for {
      file <- sys.props.get("paimonspark.bench.profile")
      agent <- sys.props.get("paimonspark.bench.profiler")
      starts <- sys.props.get("paimonspark.bench.profilerStarts")
    } yield Sampling(AsyncProfiler.getInstance(agent), starts.split('|').toSeq, file)
    val (table, cpu, wall, jit, gc) = ingest(Identifier.create("default", name), rows, profile)
    val count = table.newReadBuilder().newScan().plan().splits().asScala.map(_.rowCount()).sum
    println(s"""{"producer": "$producer", "rows": ${limit * (rows / batches)}, "cpu_s": ${cpu / 1e9}, """ +
      s""""wall_s": ${wall / 1e9}, "jit_cpu_s": $jit, "gc_cpu_s": $gc, "physical_rows": $count, """ +
      s""""compaction": ${CompactionWork.json(CompactionWork.of(table, limit))}}""")
    io.close()
    catalog.close()
  }

  /**
   * A batch's rows, built before its timing starts and serialized one after another into one array: two
   * objects to the garbage collector instead of about a dozen per row, so the young collections inside the
   * timed writes do not copy a million live rows over and over (ours reads its batches from Spark's cache,
   * a few large arrays per column, too). The writer gets each row as one BinaryRow moved along the array,
   * which is never written again: whatever the writer keeps of a row stays valid.
   */
  private final class PackedRows(rowType: RowType, count: Int, row: Int => GenericRow) {
    private val ends = new Array[Int](count)
    private val bytes = {
      val serializer = new InternalRowSerializer(rowType)
      val out = new java.io.ByteArrayOutputStream()
      (0 until count).foreach { i => out.write(serializer.toBinaryRow(row(i)).toBytes); ends(i) = out.size() }
      out.toByteArray
    }

    def rows: Iterator[InternalRow] = {
      val (segment, reused) = (MemorySegment.wrap(bytes), new BinaryRow(rowType.getFieldCount))
      ends.indices.iterator.map { i =>
        val start = if (i == 0) 0 else ends(i - 1)
        reused.pointTo(segment, start, ends(i) - start)
        reused
      }
    }
  }

  /** Samples of async-profiler into `file`, started by the first of `starts` that this machine allows. */
  private final case class Sampling(profiler: AsyncProfiler, starts: Seq[String], file: String) {
    def start(): Unit =
      if (!starts.exists(command => Try(profiler.execute(command)).isSuccess))
        throw new IllegalStateException(s"async-profiler could not start with any of ${starts.mkString(", ")}")

    def stop(): Unit = profiler.execute(s"stop,file=$file,collapsed")
  }

  /**
   * CPU seconds this JVM's threads whose names start with one of `names` have used so far, as bench/harness.py's
   * `timed_with_cpu` reads them of the Spark JVM (Linux: /proc/self/task, 100 ticks a second).
   */
  private[bench] def threadCpu(names: Seq[String]): Double =
    Option(new java.io.File("/proc/self/task").listFiles()).toSeq.flatten.map(_.toPath).map { task =>
      Try(Files.readString(task.resolve("comm"))).filter(n => names.exists(n.startsWith))
        .flatMap(_ => Try(Files.readString(task.resolve("stat")).split("\\) ", 2)(1).split(" ")))
        .map(f => (f(11).toLong + f(12).toLong) / 100.0).getOrElse(0.0)
    }.sum

  /** The values of bench/upsert_ingest.py's `with_values`, from Spark's own xxhash64. */
  private def row(id: Long, version: Int): GenericRow = {
    val h = XXH64.hashInt(version, XXH64.hashLong(id, 42L))
    def pmod(a: Long, n: Long) = ((a % n) + n) % n
    val note = if (pmod(h, 10) == 0) null else {
      val md5 = MessageDigest.getInstance("MD5").digest(h.toString.getBytes(UTF_8)).map("%02x".format(_)).mkString
      BinaryString.fromString(md5.substring(0, 16))
    }
    GenericRow.of(Long.box(id), Int.box(version), Int.box(pmod(h, 1000).toInt), Double.box(pmod(h, 100003) * 1.25),
      Double.box(pmod(XXH64.hashLong(h, 42L), 1000000) / 1e6),
      BinaryString.fromString(s"customer-${pmod(id, 100000)}"), note,
      Int.box(LocalDate.of(2024, 1, 1).plusDays(pmod(h, 365)).toEpochDay.toInt),
      Timestamp.fromEpochMillis((1700000000L + pmod(h, 31536000)) * 1000L),
      Decimal.fromUnscaledLong(pmod(h, 1000000), 12, 2))
  }
}
