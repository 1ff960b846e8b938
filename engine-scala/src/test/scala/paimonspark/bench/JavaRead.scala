package paimonspark.bench

import java.lang.management.ManagementFactory

import scala.jdk.CollectionConverters._

import org.apache.paimon.catalog.{CatalogContext, CatalogFactory, Identifier}
import org.apache.paimon.data.InternalRow
import org.apache.paimon.options.Options
import org.apache.paimon.predicate.PredicateBuilder
import org.apache.paimon.types.{DataType, DataTypeChecks, DataTypeRoot}

/**
 * Apache Paimon's Java `TableRead` over tables our engine wrote, for `bench/read_anchor.py`: the
 * reference reader our scans' CPU per row is held against. Each SCAN (`name:table`, or
 * `name:table:bound` for only the rows with `id < bound`, pushed to the read builder and applied
 * exactly by `executeFilter`) loads its table, plans it and reads every split in this one thread,
 * folding every field of every row into a checksum: a reader that decodes lazily cannot skip work
 * that a query touching the values would do. Every scan is read WARMUPS times untimed (class loading,
 * JIT), then REPEATS times timed. Prints one JSON line: per scan, the rows, sum(id) and checksum read, and
 * per repeat the CPU seconds of this JVM (all threads), of its JIT compiler threads, and wall seconds.
 *
 * usage: JavaRead WAREHOUSE WARMUPS REPEATS SCAN...
 */
object JavaRead {
  private final case class Scan(name: String, table: String, bound: Option[Long])
  private final case class Result(rows: Long, idSum: Long, checksum: Long)

  def main(args: Array[String]): Unit = {
    val options = new Options()
    options.set("warehouse", args(0))
    val catalog = CatalogFactory.createCatalog(CatalogContext.create(options))
    val (warmups, repeats) = (args(1).toInt, args(2).toInt)
    val scans = args.drop(3).toSeq.map(_.split(":")).map(s => Scan(s(0), s(1), s.lift(2).map(_.toLong)))
    val bean = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]

    def read(scan: Scan): Result = {
      val table = catalog.getTable(Identifier.create("default", scan.table))
      val rowType = table.rowType()
      val id = rowType.getFieldIndex("id")
      val builder = scan.bound.foldLeft(table.newReadBuilder()) { (b, bound) =>
        b.withFilter(new PredicateBuilder(rowType).lessThan(id, bound))
      }
      val fold = rowType.getFields.asScala.map(f => folder(f.`type`())).toArray
      val read = builder.newRead().executeFilter()
      var (rows, idSum, checksum) = (0L, 0L, 0L)
      val splits = builder.newScan().plan().splits().iterator()
      while (splits.hasNext) {
        // Batches walked by hand, not forEachRemaining: its callback would keep the sums in heap cells.
        val reader = read.createReader(splits.next())
        try {
          var batch = reader.readBatch()
          while (batch != null) {
            var row = batch.next()
            while (row != null) {
              rows += 1
              idSum += row.getLong(id)
              var i = 0
              while (i < fold.length) {
                checksum = checksum * 31 + (if (row.isNullAt(i)) 0L else fold(i)(row, i))
                i += 1
              }
              row = batch.next()
            }
            batch.releaseBatch()
            batch = reader.readBatch()
          }
        } finally reader.close()
      }
      Result(rows, idSum, checksum)
    }

    (1 to warmups).foreach(_ => scans.foreach(read))
    val measured = scans.map { scan =>
      val runs = (1 to repeats).map { _ =>
        System.gc() // the warm-up's garbage is not charged to the first timed read
        val (c0, w0, j0) = (bean.getProcessCpuTime, System.nanoTime(), JavaIngest.threadCpu(JavaIngest.JitThreads))
        val result = read(scan)
        (result, (bean.getProcessCpuTime - c0) / 1e9, (System.nanoTime() - w0) / 1e9,
          JavaIngest.threadCpu(JavaIngest.JitThreads) - j0)
      }
      val Result(rows, idSum, checksum) = runs.head._1
      if (runs.exists(_._1 != runs.head._1)) sys.error(s"${scan.name}: repeated reads differ: ${runs.map(_._1)}")
      def list(values: Seq[Double]) = values.mkString("[", ", ", "]")
      s""""${scan.name}": {"rows": $rows, "id_sum": $idSum, "checksum": $checksum, "cpu_s": ${list(runs.map(_._2))}, """ +
        s""""wall_s": ${list(runs.map(_._3))}, "jit_cpu_s": ${list(runs.map(_._4))}}"""
    }
    println(measured.mkString("{", ", ", "}"))
    catalog.close()
  }

  /** How a non-null value of `t` at a position is turned into a long, reading all of it. */
  private def folder(t: DataType): (InternalRow, Int) => Long = t.getTypeRoot match {
    case DataTypeRoot.BIGINT => (r, i) => r.getLong(i)
    case DataTypeRoot.INTEGER | DataTypeRoot.DATE => (r, i) => r.getInt(i).toLong
    case DataTypeRoot.DOUBLE => (r, i) => java.lang.Double.doubleToRawLongBits(r.getDouble(i))
    case DataTypeRoot.VARCHAR | DataTypeRoot.CHAR => (r, i) => r.getString(i).hashCode.toLong // hashes every byte
    case DataTypeRoot.DECIMAL =>
      val (precision, scale) = (DataTypeChecks.getPrecision(t), DataTypeChecks.getScale(t))
      (r, i) => r.getDecimal(i, precision, scale).toUnscaledLong
    case DataTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE | DataTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE =>
      val precision = DataTypeChecks.getPrecision(t)
      (r, i) => { val ts = r.getTimestamp(i, precision); ts.getMillisecond * 1000000L + ts.getNanoOfMillisecond }
    case other => sys.error(s"JavaRead folds no $other column")
  }
}
