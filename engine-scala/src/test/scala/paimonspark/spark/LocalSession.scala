package paimonspark.spark

import java.nio.file.{Files, Path}

import org.apache.spark.sql.SparkSession

/** A local SparkSession whose `paimon` catalog has a new temporary warehouse, for suites that write tables. */
object LocalSession {
  def start(name: String): (SparkSession, Path) = {
    val warehouse = Files.createTempDirectory(name)
    (onWarehouse(name, warehouse.toString), warehouse)
  }

  /** A session whose `paimon` catalog is over `warehouse` (a path or a URI such as `s3a://...`), with `conf` added. */
  def onWarehouse(name: String, warehouse: String, conf: (String, String)*): SparkSession = {
    val builder = SparkSession.builder().master("local[1]").appName(name)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.catalog.paimon", classOf[PaimonCatalog].getName)
      .config("spark.sql.catalog.paimon.warehouse", warehouse)
    conf.foldLeft(builder) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
  }
}
