package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BooleanType, StringType, StructField}

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.spark.write.{CompactJob, SortCompaction}
import paimonspark.table.{FileStoreTable, Predicate}
import paimonspark.table.options.DurationText

/**
 * `CALL sys.compact(table, partitions, compact_strategy, order_strategy, order_by, where, options,
 * partition_idle_time)`, Paimon's arguments in Paimon's order. Primary-key tables: `full` (the
 * default) merges every bucket into one run at the top level; `minor` runs Paimon's universal picker
 * on each bucket. Append tables: the small files of each partition are rewritten once there are
 * `compaction.min.file-num` of them, in either strategy, as Paimon's own procedure does; with an
 * `order_strategy` (`order`, `zorder`, `hilbert`) and `order_by`, each selected partition is instead
 * rewritten sorted, so that file statistics skip files on those columns. `partitions` or `where`
 * select partitions; `partition_idle_time` keeps those with no file newer than that. Returns one
 * row, `result`: whether a snapshot was committed.
 */
final class CompactProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "compact"
  override def description(): String =
    "Compacts the sorted runs of a primary-key table's buckets, or the small files of an append table"

  override protected val params = Seq(required("table", StringType), optional("partitions", StringType),
    optional("compact_strategy", StringType), optional("order_strategy", StringType), optional("order_by", StringType),
    optional("where", StringType), optional("options", StringType), optional("partition_idle_time", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    def arg(name: String) = args.string(name).map(_.trim).filter(_.nonEmpty)
    val table = args.table
    val full = arg("compact_strategy").map(_.toLowerCase).getOrElse("full") match {
      case "full" => true
      case "minor" => false
      case other => throw new InvalidOptionException("compact_strategy",
        s"compact: compact_strategy must be 'full' or 'minor', not '$other'")
    }
    val order = arg("order_strategy").map(_.toLowerCase).filter(_ != "none")
    val orderBy = arg("order_by").toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    val idle = arg("partition_idle_time").map(DurationText.parse("partition_idle_time", _))
    val selected = PartitionSelection(name, table, arg("partitions"), arg("where"))
    val committed = order match {
      case None if orderBy.nonEmpty => throw new InvalidOptionException("order_by",
        s"compact: order_by => '${orderBy.mkString(",")}' needs an order_strategy (order, zorder or hilbert)")
      case None =>
        val idleOnly = idle.map { d =>
          val limit = System.currentTimeMillis() - d.toMillis
          PartitionSelection.where(table)(_.flatMap(_.files).flatMap(_.creationTimeMillis).forall(_ <= limit))
        }
        val filter = (selected ++ idleOnly).reduceOption[Predicate](Predicate.And)
        CompactJob.run(table, filter, full)
      case Some(_) if idle.isDefined => throw new InvalidOptionException("partition_idle_time",
        "compact: a sorting compaction (order_strategy) does not take partition_idle_time")
      case Some(strategy) =>
        val curve = SortCompaction.Curve.parse(strategy)
        if (table.isPrimaryKeyTable || table.options.bucket != -1) {
          throw new UnsupportedFeatureException(s"compact: table ${table.name}: order_strategy '$strategy' sorts append " +
            "tables without fixed buckets ('bucket' = '-1') only, as in Paimon", "order_strategy")
        }
        SortCompaction.run(table, selected, curve, orderBy)
    }
    Seq(InternalRow(committed.isDefined))
  }
}
