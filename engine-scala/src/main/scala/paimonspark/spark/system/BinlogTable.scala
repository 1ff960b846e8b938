package paimonspark.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.types.{ArrayType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.spark.read.ChangeColumns
import paimonspark.table.FileStoreTable

/**
 * `t$binlog`: `$audit_log` with each column as an array, Paimon's binlog form. An update read as a
 * -U row directly followed by the +U of the same key (as changelog files hold them) is one +U row
 * whose arrays are [before, after]; every other row has one-element arrays.
 */
final class BinlogTable(table: FileStoreTable, displayName: String) extends Table with SupportsRead {
  private val audit = new AuditLogTable(table, displayName)
  private val valueFields = audit.schema().fields.tail.toSeq

  override def name(): String = displayName
  override def schema(): StructType =
    StructType(audit.schema().fields.head +: valueFields.map(f => StructField(f.name, ArrayType(f.dataType, f.nullable))))
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () => new Scan with Batch {
    private lazy val inner = audit.newScanBuilder(options).build()
    override def readSchema(): StructType = schema()
    override def toBatch: Batch = this
    override def planInputPartitions(): Array[InputPartition] = inner.toBatch.planInputPartitions()
    override def createReaderFactory(): PartitionReaderFactory = {
      // The audit scan's rows follow its own schema: find the key columns there.
      val auditSchema = inner.readSchema()
      new BinlogReaderFactory(inner.toBatch.createReaderFactory(), auditSchema,
        table.schema.primaryKeys.map(auditSchema.fieldIndex), valueFields.map(f => auditSchema.fieldIndex(f.name)))
    }
  }
}

/** Reads `$audit_log` rows and turns them into binlog rows, pairing each -U with its +U. */
final class BinlogReaderFactory(audit: PartitionReaderFactory, auditSchema: StructType, keyOrdinals: Seq[Int],
    columnOrdinals: Seq[Int]) extends PartitionReaderFactory {
  private val kindOrdinal = auditSchema.fieldIndex(ChangeColumns.RowKind)

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = new PartitionReader[InternalRow] {
    private val rows = audit.createReader(partition)
    private var pending: InternalRow = _
    private var current: InternalRow = _

    private def kind(row: InternalRow): String = row.getUTF8String(kindOrdinal).toString
    private def value(row: InternalRow, i: Int): Any = row.get(i, auditSchema(i).dataType)
    private def sameKey(a: InternalRow, b: InternalRow): Boolean = keyOrdinals.nonEmpty && keyOrdinals.forall(i => value(a, i) == value(b, i))
    private def take(): Option[InternalRow] =
      if (pending != null) { val p = pending; pending = null; Some(p) }
      else if (rows.next()) Some(rows.get().copy()) else None

    private def binlog(kindText: String, versions: InternalRow*): InternalRow = new GenericInternalRow(
      (UTF8String.fromString(kindText) +: columnOrdinals.map(i => new GenericArrayData(versions.map(value(_, i)).toArray)))
        .toArray[Any])

    override def next(): Boolean = take() match {
      case None => false
      case Some(row) if kind(row) == "-U" =>
        current = take() match {
          case Some(after) if kind(after) == "+U" && sameKey(row, after) => binlog("+U", row, after)
          case other => pending = other.orNull; binlog("-U", row)
        }
        true
      case Some(row) => current = binlog(kind(row), row); true
    }

    override def get(): InternalRow = current
    override def close(): Unit = rows.close()
  }
}
