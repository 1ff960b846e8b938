package paimonspark.spark.read

import java.util.OptionalLong

import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/**
 * A scan builder whose scans also stream. Spark builds the same way for batch and for streaming
 * reads (a stream is built without pushed columns or filters), so every scan of a table must be
 * able to become a [[MicroBatchStream]]; this adds that to a batch scan builder.
 */
final class StreamableScanBuilder(batch: ScanBuilder, stream: () => MicroBatchStream)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  override def pruneColumns(requiredSchema: StructType): Unit = batch match {
    case b: SupportsPushDownRequiredColumns => b.pruneColumns(requiredSchema)
    case _ => ()
  }

  override def pushFilters(filters: Array[Filter]): Array[Filter] = batch match {
    case b: SupportsPushDownFilters => b.pushFilters(filters)
    case _ => filters
  }

  override def pushedFilters(): Array[Filter] = batch match {
    case b: SupportsPushDownFilters => b.pushedFilters()
    case _ => Array.empty
  }

  override def build(): Scan = new StreamableScan(batch.build(), stream)
}

/** A batch scan that streams too. */
final class StreamableScan(batch: Scan, stream: () => MicroBatchStream) extends Scan with SupportsReportStatistics {
  override def readSchema(): StructType = batch.readSchema()
  override def description(): String = batch.description()
  override def toBatch: Batch = batch.toBatch
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = stream()
  override def columnarSupportMode(): Scan.ColumnarSupportMode = batch.columnarSupportMode()
  override def estimateStatistics(): Statistics = batch match {
    case s: SupportsReportStatistics => s.estimateStatistics()
    case _ => new Statistics {
      override def sizeInBytes(): OptionalLong = OptionalLong.empty()
      override def numRows(): OptionalLong = OptionalLong.empty()
    }
  }
}
