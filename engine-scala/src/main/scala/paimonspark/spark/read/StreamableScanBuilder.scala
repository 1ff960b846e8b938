package paimonspark.spark.read

import java.util.OptionalLong

import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.connector.read.partitioning.Partitioning
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/**
 * A scan builder whose scans also stream. Spark builds the same way for batch and for streaming
 * reads (a stream is built without pushed columns or filters), so every scan of a table must be
 * able to become a [[MicroBatchStream]]; this adds that to a batch scan builder. The batch side is
 * made only when used: a stream's start options (`scan.snapshot-id` of a snapshot that expired,
 * whose changes are a long-lived changelog) need not name a state a batch read could travel to.
 */
final class StreamableScanBuilder(makeBatch: => ScanBuilder, stream: () => MicroBatchStream)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownFilters {

  // Columns and filters are handed to the batch builder when it is made, or at once if it was:
  // Spark asks for the pushed filters (which makes it) before it prunes columns.
  private var columns: Option[StructType] = None
  private var filters = Array.empty[Filter]
  private var made = false
  private lazy val batch = {
    val b = makeBatch
    made = true
    columns.foreach(prune(b, _))
    b match {
      case p: SupportsPushDownFilters if filters.nonEmpty => p.pushFilters(filters)
      case _ => ()
    }
    b
  }

  private def prune(builder: ScanBuilder, required: StructType): Unit = builder match {
    case p: SupportsPushDownRequiredColumns => p.pruneColumns(required)
    case _ => ()
  }

  override def pruneColumns(requiredSchema: StructType): Unit = {
    columns = Some(requiredSchema)
    if (made) prune(batch, requiredSchema)
  }

  // Filters only ever select files: Spark evaluates every one of them again after the scan.
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    this.filters = filters
    filters
  }

  override def pushedFilters(): Array[Filter] = batch match {
    case b: SupportsPushDownFilters => b.pushedFilters()
    case _ => Array.empty
  }

  override def build(): Scan = new StreamableScan(batch.build(), stream)
}

/**
 * A batch scan that streams too; the batch scan is built when first used. Spark describes and sizes
 * a stream's scan before it starts, when the batch side may name no readable state: then the scan
 * describes itself as a stream of unknown size and layout. A batch read reports the batch scan's
 * layout ([[BucketLayout]]).
 */
final class StreamableScan(makeBatch: => Scan, stream: () => MicroBatchStream) extends Scan with SupportsReportStatistics
    with SupportsReportPartitioning {
  private lazy val batch = scala.util.Try(makeBatch)
  override def readSchema(): StructType = batch.get.readSchema()
  override def description(): String = batch.map(_.description()).getOrElse("PaimonStream")
  override def toBatch: Batch = batch.get.toBatch
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = stream()
  override def estimateStatistics(): Statistics = batch.toOption match {
    case Some(s: SupportsReportStatistics) => s.estimateStatistics()
    case _ => new Statistics {
      override def sizeInBytes(): OptionalLong = OptionalLong.empty()
      override def numRows(): OptionalLong = OptionalLong.empty()
    }
  }
  override def outputPartitioning(): Partitioning = batch.toOption match {
    case Some(s: SupportsReportPartitioning) => s.outputPartitioning()
    case _ => BucketLayout.Unreported
  }
}
