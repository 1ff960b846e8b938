package paimonspark.spark.write

import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{DeltaBatchWrite, DeltaWrite, DeltaWriteBuilder, DeltaWriterFactory,
  LogicalWriteInfo, PhysicalWriteInfo, RequiresDistributionAndOrdering, SupportsDelta, WriterCommitMessage}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.UnsupportedFeatureException
import paimonspark.lsm.MergeEngineSpec
import paimonspark.spark.SparkTable
import paimonspark.spark.read.PaimonScanBuilder
import paimonspark.table.FileStoreTable

/**
 * DELETE, UPDATE and MERGE INTO on a primary-key table: rows are identified by their key, and
 * only the keys the statement changes are written, as retractions and upserts merged on read;
 * no file is rewritten. Two statements at once both land, as two writes would.
 */
final class KeyDeltaOperation(table: SparkTable, command: Command) extends SupportsDelta {
  private val store = table.store

  override def command(): Command = command

  override def description(): String = s"merge-on-read $command of ${table.name()}"

  override def rowId(): Array[NamedReference] = store.schema.primaryKeys.map(k => Expressions.column(k)).toArray

  override def representUpdateAsDeleteAndInsert(): Boolean = false

  // Refused here, not when the statement is analyzed: a DELETE of whole partitions never gets here.
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    KeyDeltaOperation.refusal(MergeEngineSpec.of(table.name(), store.schema), command).foreach { why =>
      throw new UnsupportedFeatureException(s"table ${table.name()}: $command $why")
    }
    new PaimonScanBuilder(store)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = new KeyDeltaWrite(table, info.queryId())
  }
}

object KeyDeltaOperation {

  /**
   * Whether a DELETE rewrites files instead, as Paimon's does ([[CopyOnWriteOperation]]): its -D rows
   * would be ignored by first-row, folded into the totals of aggregation and dropped by partial-update,
   * unless their `remove-record-on-delete` option makes a -D remove the key. (Spark hands a DELETE
   * the key of each row only, so its -D rows carry no sequence group: a group's removal applies to -D
   * rows a write brings, such as CDC with `rowkind.field`.)
   */
  def rewritesFiles(store: FileStoreTable, command: Command): Boolean =
    command == Command.DELETE && !MergeEngineSpec.of(store.name, store.schema).deletesByRetraction

  /**
   * Why a merge engine cannot take a statement, in Paimon's words: UPDATE and MERGE need an engine
   * whose result is the newest version (deduplicate, partial-update).
   */
  def refusal(spec: MergeEngineSpec, command: Command): Option[String] = (spec.engine, command) match {
    case ("deduplicate", Command.DELETE) if spec.ignoreDelete => Some("would do nothing: the table sets 'ignore-delete'")
    case ("deduplicate", _) | ("partial-update", Command.UPDATE | Command.MERGE) | (_, Command.DELETE) => None
    case (engine, _) =>
      val op = if (command == Command.UPDATE) "Update" else "MergeInto"
      Some(s"is refused: merge engine $engine can not support $op, currently only deduplicate, partial-update can " +
        s"support $op.")
  }
}

/** The write of a [[KeyDeltaOperation]]: the table's own write, laid out and committed as any write. */
final class KeyDeltaWrite(table: SparkTable, queryId: String)
    extends DeltaWrite with DeltaBatchWrite with RequiresDistributionAndOrdering {
  private val write = new PaimonWrite(table, None, queryId)

  override def requiredDistribution() = write.requiredDistribution()
  override def requiredOrdering() = write.requiredOrdering()
  override def advisoryPartitionSizeInBytes(): Long = write.advisoryPartitionSizeInBytes()
  override def toBatch: DeltaBatchWrite = this
  override def useCommitCoordinator(): Boolean = true
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory = write.primaryKeyWriterFactory
  override def commit(messages: Array[WriterCommitMessage]): Unit = write.commit(messages)
  override def abort(messages: Array[WriterCommitMessage]): Unit = write.abort(messages)
}
