package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.SnapshotNotFoundException
import paimonspark.table.FileStoreTable

/**
 * `CALL sys.reset_consumer(table, consumerId, nextSnapshotId)`: the consumer reads on from that
 * snapshot, which must exist; without it the consumer is deleted (and no longer holds snapshots).
 */
final class ResetConsumerProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "reset_consumer"
  override protected val params = Seq(required("table", StringType), required("consumerId", StringType),
    optional("nextSnapshotId", LongType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val id = args.need("consumerId", args.string("consumerId"))
    args.long("nextSnapshotId") match {
      case Some(next) =>
        if (!table.snapshotManager.snapshotExists(next)) {
          throw new SnapshotNotFoundException(snapshot = next.toString, message = s"$name: table ${table.name} has no " +
            s"snapshot $next (retained: ${table.snapshotManager.earliestId().getOrElse("none")} to " +
            s"${table.snapshotManager.latestId().getOrElse("none")})")
        }
        table.consumerManager.record(id, next)
      case None => table.consumerManager.delete(id)
    }
    Seq(InternalRow(true))
  }
}

/**
 * `CALL sys.clear_consumers(table, includingConsumers, excludingConsumers)`: deletes the consumers
 * whose id matches `includingConsumers` (a regular expression, every one when left out) and not
 * `excludingConsumers`.
 */
final class ClearConsumersProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "clear_consumers"
  override protected val params = Seq(required("table", StringType), optional("includingConsumers", StringType),
    optional("excludingConsumers", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    def pattern(name: String) = args.string(name).map(_.trim).filter(_.nonEmpty)
    args.table.consumerManager.clear(pattern("includingConsumers").getOrElse(".*"), pattern("excludingConsumers"))
    Seq(InternalRow(true))
  }
}
