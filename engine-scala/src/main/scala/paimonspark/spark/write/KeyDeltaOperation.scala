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
   * Why a merge engine cannot take a statement, as Paimon refuses them: first-row keeps the first
   * version whatever comes later, aggregation would fold an update or a retraction into its totals,
   * and partial-update drops a retraction unless `partial-update.remove-record-on-delete` is set.
   */
  def refusal(spec: MergeEngineSpec, command: Command): Option[String] = spec.engine match {
    case "first-row" => Some("is not supported by the first-row merge engine, which keeps each key's first row")
    case "aggregation" => Some("is not supported by the aggregation merge engine, which would add the change to its totals")
    case "partial-update" if command == Command.DELETE && !spec.removeRecordOnDelete =>
      Some("needs 'partial-update.remove-record-on-delete' = 'true' on a partial-update table")
    case _ if command == Command.DELETE && spec.ignoreDelete => Some("would do nothing: the table sets 'ignore-delete'")
    case _ => None
  }
}

/** The write of a [[KeyDeltaOperation]]: the table's own write, laid out and committed as any write. */
final class KeyDeltaWrite(table: SparkTable, queryId: String)
    extends DeltaWrite with DeltaBatchWrite with RequiresDistributionAndOrdering {
  private val write = new PaimonWrite(table, None, queryId)

  override def requiredDistribution() = write.requiredDistribution()
  override def requiredOrdering() = write.requiredOrdering()
  override def toBatch: DeltaBatchWrite = this
  override def useCommitCoordinator(): Boolean = true
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory = write.primaryKeyWriterFactory
  override def commit(messages: Array[WriterCommitMessage]): Unit = write.commit(messages)
  override def abort(messages: Array[WriterCommitMessage]): Unit = write.abort(messages)
}
