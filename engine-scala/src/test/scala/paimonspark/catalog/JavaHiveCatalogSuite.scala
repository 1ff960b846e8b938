package paimonspark.catalog

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.HiveMetaStoreClient
import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.Loopback
import paimonspark.interop.JavaPaimon

/**
 * The reference for the metastore catalog (issue 29): what Apache Paimon's Java `HiveCatalog` registers in a real
 * metastore, read back through Hive's own client. Our catalog must register tables the same way.
 */
class JavaHiveCatalogSuite extends AnyFunSuite {
  private lazy val metastore = MetastoreServer.shared

  test("the metastore listens on 127.0.0.1 only") {
    val addresses = Loopback.listeners(metastore.port)
    assert(addresses.nonEmpty && addresses.forall(Loopback.LoopbackAddresses), addresses)
  }

  test("Java's HiveCatalog registers a managed Paimon table and commits to it under the metastore's lock") {
    val java = new JavaPaimon(metastore.warehouse.toUri.toString,
      Map("metastore" -> "hive", "uri" -> metastore.uri, "lock.enabled" -> "true"))
    try {
      java.createTable("sales.orders", Schema.newBuilder().column("id", DataTypes.INT().notNull())
        .column("v", DataTypes.STRING()).primaryKey("id").option("bucket", "1").build())
      // With lock.enabled each commit takes the metastore's table lock, which fails without the transaction tables.
      java.insert("sales.orders", Seq(1, "a"), Seq(2, "b"))
      assert(java.rows("sales.orders") == Seq(Seq(1, "a"), Seq(2, "b")))
    } finally java.close()
    val client = new HiveMetaStoreClient(metastore.clientConf)
    try {
      assert(client.getDatabase("sales").getLocationUri.stripSuffix("/").endsWith("/warehouse/sales.db"))
      val table = client.getTable("sales", "orders")
      assert(table.getTableType == "MANAGED_TABLE")
      assert(table.getSd.getLocation.stripSuffix("/").endsWith("/warehouse/sales.db/orders"))
      assert((table.getSd.getInputFormat, table.getSd.getOutputFormat, table.getSd.getSerdeInfo.getSerializationLib) == (
        "org.apache.paimon.hive.mapred.PaimonInputFormat", "org.apache.paimon.hive.mapred.PaimonOutputFormat",
        "org.apache.paimon.hive.PaimonSerDe"))
      val parameters = table.getParameters.asScala
      assert(parameters("table_type") == "PAIMON")
      assert(parameters("storage_handler") == "org.apache.paimon.hive.PaimonStorageHandler")
      assert(parameters("primary-key") == "id" && parameters("bucket") == "1")
      assert(table.getSd.getCols.asScala.map(c => (c.getName, c.getType)) == Seq("id" -> "int", "v" -> "string"))
    } finally client.close()
  }
}
