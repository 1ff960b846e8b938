package paimonspark.spark.write

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}

import paimonspark.spark.SparkSchemas
import paimonspark.spark.read.{PaimonScan, PushDownScanBuilder}
import paimonspark.table.FileStoreTable

/**
 * The scan of a row-level statement on an append table, remembered for its write: the files that
 * statistics and partition values keep, read whole, with no filter pushed into them (a skipped row
 * group would be missing from a rewrite, and would shift the positions counted after it).
 */
private[write] final class StatementScan(store: FileStoreTable, statement: String) {
  @volatile private var built: Option[PaimonScan] = None

  def builder: ScanBuilder = new PushDownScanBuilder(store.schema, SparkSchemas.sparkSchema(store.schema)) {
    override def build(): Scan = {
      val scan = new PaimonScan(store, required, Nil, predicate)
      built = Some(scan)
      scan
    }
  }

  def scan: PaimonScan = built.getOrElse(throw new IllegalStateException(s"$statement wrote before it read"))
}
