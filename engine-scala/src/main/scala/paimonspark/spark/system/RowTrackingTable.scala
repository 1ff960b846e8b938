package paimonspark.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{RowTrackingFields, SparkTypes}
import paimonspark.spark.{SparkSchemas, SparkTable}
import paimonspark.spark.read.{PushDownScanBuilder, RowTrackingScan}
import paimonspark.table.{FileStoreTable, TableFeatures, TableOptions}
import paimonspark.table.changes.ChangeRange

/**
 * `t$row_tracking`: the rows of a table another engine wrote with `row-tracking.enabled`, each with
 * its `_ROW_ID` and `_SEQUENCE_NUMBER` ([[RowTrackingFields]]), as Paimon's `RowTrackingTable` reads
 * them. Over a table without row tracking it is refused when loaded, with Paimon's message.
 */
final class RowTrackingTable(table: FileStoreTable, displayName: String) extends Table with SupportsRead {
  if (!table.options.rowTracking) {
    // Paimon names the table as it was given, without the system table's suffix.
    val named = displayName.stripSuffix("$row_tracking")
    throw new UnsupportedFeatureException(s"Table $named does not support row tracking, please enable " +
      s"'${TableOptions.RowTracking}' option to use 'with_metadata' table.", TableOptions.RowTracking)
  }

  override def name(): String = displayName

  override def schema(): StructType = {
    TableFeatures.requireColumnTypes(table)
    StructType(SparkSchemas.sparkSchema(table.schema) ++ SparkTypes.toSparkStruct(RowTrackingFields.all, withFieldIds = false))
  }

  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val at = SparkTable.withDynamicOptions(table, options)
    // Paimon reads the rows those commits wrote; reading the snapshot's instead would answer another question.
    ChangeRange.Keys.find(options.containsKey).foreach { key =>
      throw new UnsupportedFeatureException(s"$displayName reads the rows of one snapshot; reading a range of " +
        s"changes ('$key') from it is not supported yet", key)
    }
    new PushDownScanBuilder(at.schema, schema()) {
      override def build(): Scan = new RowTrackingScan(at, required, pushed.toSeq, predicate)
    }
  }
}
