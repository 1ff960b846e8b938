package paimonspark.catalog.hive

import java.math.{BigDecimal => JBigDecimal}
import java.net.URI
import java.nio.file.{Files, Path}
import java.util.{HashMap => JHashMap}
import java.util.concurrent.Executors

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.HiveMetaStoreClient
import org.apache.hadoop.hive.metastore.api.{FieldSchema, LockComponent, LockLevel, LockRequest, LockState, LockType,
  PartitionEventType, SerDeInfo, StorageDescriptor, Table}
import org.apache.paimon.data.{Decimal, GenericArray}
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.DataTypes
import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CommitConflictException, InvalidIdentifierException, InvalidOptionException, MetastoreException,
  UnsupportedFeatureException}
import paimonspark.catalog.MetastoreServer
import paimonspark.interop.{IcebergJava, JavaPaimon}
import paimonspark.spark.LocalSession

/**
 * Our Hive catalog against a real metastore (Hive 2.3.10, loopback only), held against Apache
 * Paimon's own Java `HiveCatalog` on the same metastore: each registers tables exactly as the other
 * does, reads, writes and alters what the other created, and their metastore locks exclude each other.
 */
class MetastoreCatalogSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val metastore = MetastoreServer.start()
  private lazy val warehouse = metastore.warehouse.toUri.toString
  private lazy val spark: SparkSession = LocalSession.onWarehouse("metastore-catalog", warehouse,
    "spark.sql.catalog.paimon.metastore" -> "hive", "spark.sql.catalog.paimon.uri" -> metastore.uri,
    "spark.sql.catalog.paimon.lock.enabled" -> "true", "spark.sql.catalog.paimon.lock-acquire-timeout" -> "3 s")
  private lazy val javaPaimon = new JavaPaimon(warehouse, Map("metastore" -> "hive", "uri" -> metastore.uri,
    "lock.enabled" -> "true"))
  private lazy val client = new HiveMetaStoreClient(metastore.clientConf)

  override def afterAll(): Unit = {
    javaPaimon.close()
    client.close()
    spark.stop()
    metastore.stop()
  }

  private def sql(text: String) = spark.sql(text)
  private def rows(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).collect().toSeq.map(_.toSeq))

  /** What another engine reads from the metastore: everything but the times it was written at. */
  private def record(db: String, table: String): (String, StorageDescriptor, Seq[FieldSchema], Map[String, String]) = {
    val t = client.getTable(db, table)
    val sd = t.getSd.deepCopy()
    sd.setLocation(sd.getLocation.stripSuffix("/").split('/').last)
    (t.getTableType, sd, t.getPartitionKeys.asScala.toSeq, t.getParameters.asScala.toMap - "transient_lastDdlTime")
  }

  test("the metastore listens on 127.0.0.1 only") {
    val addresses = paimonspark.Loopback.listeners(metastore.port)
    assert(addresses.nonEmpty && addresses.forall(paimonspark.Loopback.LoopbackAddresses), addresses)
  }

  test("a table we create is recorded in the metastore exactly as Paimon's HiveCatalog records the same table") {
    sql("CREATE DATABASE paimon.ours COMMENT 'our side' WITH DBPROPERTIES ('team' = 'data')")
    sql("""CREATE TABLE paimon.ours.orders (id INT NOT NULL COMMENT 'the key', v STRING, amount DECIMAL(10, 2),
           tags ARRAY<STRING>, dt STRING) PARTITIONED BY (dt) COMMENT 'orders'
           TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2', 'metastore.partitioned-table' = 'true')""")
    javaPaimon.createTable("theirs.orders", Schema.newBuilder().column("id", DataTypes.INT().notNull(), "the key")
      .column("v", DataTypes.STRING()).column("amount", DataTypes.DECIMAL(10, 2))
      .column("tags", DataTypes.ARRAY(DataTypes.STRING())).column("dt", DataTypes.STRING().notNull())
      .partitionKeys("dt").primaryKey("id", "dt").option("bucket", "2").option("metastore.partitioned-table", "true")
      .comment("orders").build())
    val (ours, theirs) = (record("ours", "orders"), record("theirs", "orders"))
    assert(ours._1 == "MANAGED_TABLE" && ours._1 == theirs._1)
    assert(ours._2 == theirs._2, s"\nours:   ${ours._2}\ntheirs: ${theirs._2}")
    assert(ours._3 == theirs._3)
    assert(ours._4 == theirs._4, s"\nours:   ${ours._4}\ntheirs: ${theirs._4}")
    assert(ours._4("table_type") == "PAIMON" && ours._4("primary-key") == "id,dt" && ours._4("bucket-key") == "id")
    val db = client.getDatabase("ours")
    assert(db.getLocationUri.stripSuffix("/").endsWith("/warehouse/ours.db"))
    assert(db.getDescription == "our side" && db.getParameters.get("team") == "data")
  }

  test("Java's HiveCatalog lists, reads, writes and alters our table, and we see its changes") {
    sql("INSERT INTO paimon.ours.orders VALUES (1, 'a', 1.50, array('x'), 'd1'), (2, 'b', 2.00, array(), 'd2')")
    assert(javaPaimon.listTables("ours") == Seq("orders"))
    assert(javaPaimon.rows("ours.orders").map(_.take(2)) == Seq(Seq(1, "a"), Seq(2, "b")))
    javaPaimon.insert("ours.orders", Seq(3, "c", Decimal.fromBigDecimal(new JBigDecimal("3.00"), 10, 2),
      new GenericArray(Array.empty[AnyRef]), "d1"))
    javaPaimon.alter("ours.orders", SchemaChange.addColumn("note", DataTypes.STRING()))
    assert(rows("SELECT id, v, note FROM paimon.ours.orders") == Seq(Seq(1, "a", null), Seq(2, "b", null), Seq(3, "c", null)))
    sql("ALTER TABLE paimon.ours.orders ADD COLUMN qty INT")
    sql("ALTER TABLE paimon.ours.orders SET TBLPROPERTIES ('snapshot.num-retained.max' = '50')")
    assert(javaPaimon.table("ours.orders").rowType().getFieldNames.asScala.last == "qty")
    val hms = client.getTable("ours", "orders")
    assert(hms.getSd.getCols.asScala.map(_.getName) == Seq("id", "v", "amount", "tags", "note", "qty"))
    assert(hms.getParameters.get("snapshot.num-retained.max") == "50")
    sql("ALTER TABLE paimon.ours.orders UNSET TBLPROPERTIES ('snapshot.num-retained.max')")
    assert(!client.getTable("ours", "orders").getParameters.containsKey("snapshot.num-retained.max"))
    // The metastore holds the partitions that have files, and lets a dropped one go.
    def partitions = client.listPartitions("ours", "orders", 100.toShort).asScala.map(_.getValues.asScala.mkString).toSet
    assert(partitions == Set("d1", "d2"))
    assert(client.getPartition("ours", "orders", List("d1").asJava).getSd.getLocation.endsWith("/ours.db/orders/dt=d1"))
    sql("ALTER TABLE paimon.ours.orders DROP PARTITION (dt = 'd2')")
    assert(partitions == Set("d1"))
    assert(rows("SELECT id FROM paimon.ours.orders VERSION AS OF 1") == Seq(Seq(1), Seq(2)))
  }

  test("partitions marked done: a .done partition and a LOAD_DONE event in the metastore, as Paimon's actions do") {
    sql("CREATE DATABASE IF NOT EXISTS paimon.ours")
    sql("""CREATE TABLE paimon.ours.daily (id INT, dt STRING, h STRING) PARTITIONED BY (dt, h) TBLPROPERTIES
           ('metastore.partitioned-table' = 'true', 'partition.mark-done-action' = 'success-file,done-partition,mark-event')""")
    sql("INSERT INTO paimon.ours.daily VALUES (1, 'd1', '01')")
    sql("CALL paimon.sys.mark_partition_done(table => 'ours.daily', partitions => 'dt=d1,h=01')")
    val values = client.listPartitions("ours", "daily", 100.toShort).asScala.map(_.getValues.asScala.toSeq).toSet
    assert(values == Set(Seq("d1", "01"), Seq("d1", "01.done")))
    assert(client.isPartitionMarkedForEvent("ours", "daily", Map("dt" -> "d1", "h" -> "01").asJava,
      PartitionEventType.LOAD_DONE))
    assert(!client.isPartitionMarkedForEvent("ours", "daily", Map("dt" -> "d2", "h" -> "01").asJava,
      PartitionEventType.LOAD_DONE))
    assert(Files.exists(metastore.warehouse.resolve("ours.db/daily/dt=d1/h=01/_SUCCESS")))
    assert(rows("SELECT * FROM paimon.ours.daily") == Seq(Seq(1, "d1", "01")))
    sql("""CREATE TABLE paimon.ours.flat_done (id INT, dt STRING) PARTITIONED BY (dt)
           TBLPROPERTIES ('partition.mark-done-action' = 'done-partition')""")
    val refused = intercept[InvalidOptionException](
      sql("CALL paimon.sys.mark_partition_done(table => 'ours.flat_done', partitions => 'dt=d1')"))
    assert(refused.getMessage.contains("Table should enable metastore.partitioned-table"))
  }

  test("a table Java's HiveCatalog creates is listed, read, written, altered and time-travelled here") {
    javaPaimon.createTable("theirs.events", Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
      .column("v", DataTypes.STRING()).primaryKey("k").option("bucket", "1").build())
    javaPaimon.insert("theirs.events", Seq(1L, "one"))
    assert(rows("SHOW TABLES IN paimon.theirs").map(_(1)) == Seq("events", "orders"))
    sql("INSERT INTO paimon.theirs.events VALUES (1, 'uno'), (2, 'dos')")
    sql("ALTER TABLE paimon.theirs.events ADD COLUMN w INT")
    sql("CALL paimon.sys.create_tag(table => 'theirs.events', tag => 't1', snapshot => 1)")
    assert(javaPaimon.rows("theirs.events") == Seq(Seq(1L, "uno", null), Seq(2L, "dos", null)))
    assert(javaPaimon.atTag("theirs.events", "t1") == Seq(Seq(1L, "one")))
    assert(rows("SELECT * FROM paimon.theirs.events VERSION AS OF 't1'") == Seq(Seq(1L, "one")))
    assert(client.getTable("theirs", "events").getSd.getCols.asScala.map(_.getName) == Seq("k", "v", "w"))
    // Dropped and created again over there: the table we remembered the place of is gone, the new one is read.
    javaPaimon.catalog.dropTable(org.apache.paimon.catalog.Identifier.create("theirs", "events"), false)
    javaPaimon.createTable("theirs.events", Schema.newBuilder().column("other", DataTypes.STRING()).build())
    javaPaimon.insert("theirs.events", Seq("new"))
    assert(rows("SELECT * FROM paimon.theirs.events") == Seq(Seq("new")))
  }

  test("our commits and Java's take the same metastore lock: concurrent commits from both lose nothing") {
    sql("CREATE TABLE paimon.ours.log (writer STRING, n INT)")
    val pool = Executors.newFixedThreadPool(2)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      val commits = 4
      val both = Future.sequence(Seq(
        Future((1 to commits).foreach(n => sql(s"INSERT INTO paimon.ours.log VALUES ('ours', $n)"))),
        Future((1 to commits).foreach(n => javaPaimon.insert("ours.log", Seq("java", n))))))
      Await.result(both, 5.minutes)
      assert(rows("SELECT writer, count(*) FROM paimon.ours.log GROUP BY writer") == Seq(Seq("java", commits.toLong), Seq("ours", commits.toLong)))
      // Java's writer also compacts the small files as they pile up, in snapshots of its own.
      assert(javaPaimon.snapshotIds("ours.log").size >= 2 * commits)
    } finally pool.shutdown()
    // Held by someone else, the lock keeps our commit out until lock-acquire-timeout, then fails it cleanly.
    val component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, "ours")
    component.setTablename("log")
    component.unsetOperationType()
    val held = client.lock(new LockRequest(List(component).asJava, "someone", "elsewhere"))
    assert(held.getState == LockState.ACQUIRED)
    try {
      val e = intercept[CommitConflictException](sql("INSERT INTO paimon.ours.log VALUES ('ours', 99)"))
      assert(e.getMessage.contains("ours.log") && e.getMessage.contains("lock-acquire-timeout"), e.getMessage)
    } finally client.unlock(held.getLockid)
    sql("INSERT INTO paimon.ours.log VALUES ('ours', 100)")
    assert(rows("SELECT n FROM paimon.ours.log WHERE n > 8") == Seq(Seq(100)))
  }

  test("renames and drops move or delete a managed table's files, never an external table's") {
    val external = Files.createTempDirectory("external").resolve("t").toUri.toString
    sql(s"CREATE TABLE paimon.ours.ext (id INT) LOCATION '$external'")
    sql("CREATE TABLE paimon.ours.managed (id INT)")
    sql("INSERT INTO paimon.ours.ext VALUES (1)")
    sql("INSERT INTO paimon.ours.managed VALUES (2)")
    assert(client.getTable("ours", "ext").getTableType == "EXTERNAL_TABLE")
    assert(client.getTable("ours", "ext").getParameters.get("EXTERNAL") == "TRUE")
    sql("ALTER TABLE paimon.ours.managed RENAME TO ours.moved")
    sql("ALTER TABLE paimon.ours.ext RENAME TO ours.ext2")
    val moved = Path.of(new URI(client.getTable("ours", "moved").getSd.getLocation))
    assert(moved.endsWith("ours.db/moved") && Files.isDirectory(moved.resolve("schema")))
    assert(!Files.exists(metastore.warehouse.resolve("ours.db/managed")))
    assert(new URI(client.getTable("ours", "ext2").getSd.getLocation).getPath.stripSuffix("/") ==
      new URI(external).getPath.stripSuffix("/"))
    assert(rows("SELECT * FROM paimon.ours.moved") == Seq(Seq(2)) && rows("SELECT * FROM paimon.ours.ext2") == Seq(Seq(1)))
    sql("DROP TABLE paimon.ours.moved")
    sql("DROP TABLE paimon.ours.ext2")
    assert(!Files.exists(moved) && Files.isDirectory(Path.of(new URI(external)).resolve("schema")))
    assert(!client.tableExists("ours", "moved") && !client.tableExists("ours", "ext2"))
  }

  test("databases: a location, properties set and removed, and a cascading drop of their tables") {
    val location = Files.createTempDirectory("located").resolve("db").toUri.toString
    sql(s"CREATE DATABASE paimon.located LOCATION '$location' WITH DBPROPERTIES ('a' = '1', 'b' = '2')")
    sql("ALTER NAMESPACE paimon.located SET DBPROPERTIES ('a' = '10')")
    sql("ALTER NAMESPACE paimon.located UNSET DBPROPERTIES ('b')")
    val db = client.getDatabase("located")
    assert(db.getParameters.asScala.toMap == Map("a" -> "10"))
    assert(new URI(db.getLocationUri).getPath.stripSuffix("/") == new URI(location).getPath)
    sql("CREATE TABLE paimon.located.t (id INT)")
    sql("INSERT INTO paimon.located.t VALUES (1)")
    val table = Path.of(new URI(location)).resolve("t")
    assert(Files.isDirectory(table.resolve("snapshot")))
    assert(rows("SHOW NAMESPACES IN paimon").map(_.head).contains("located"))
    sql("DROP DATABASE paimon.located CASCADE")
    assert(!client.getAllDatabases.asScala.contains("located") && !Files.exists(table))
  }

  test("a catalog given only hive-conf-dir finds the metastore through its hive-site.xml") {
    val conf = Files.createTempDirectory("hive-conf")
    Files.writeString(conf.resolve("hive-site.xml"), "<?xml version=\"1.0\"?>\n<configuration><property>" +
      s"<name>hive.metastore.uris</name><value>${metastore.uri}</value></property></configuration>\n")
    spark.conf.set("spark.sql.catalog.confdir", classOf[paimonspark.spark.PaimonCatalog].getName)
    spark.conf.set("spark.sql.catalog.confdir.metastore", "hive")
    spark.conf.set("spark.sql.catalog.confdir.hive-conf-dir", conf.toString)
    spark.conf.set("spark.sql.catalog.confdir.warehouse", warehouse)
    assert(rows("SHOW TABLES IN confdir.theirs").map(_(1)).contains("events"))
  }

  test("a Hive table of another format is not listed, and is refused by name, clearly") {
    val t = new Table("legacy", "ours", "hive", 0, 0, 0, new StorageDescriptor(List(new FieldSchema("a", "int", null)).asJava,
      null, "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
      "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat", false, 0,
      new SerDeInfo(null, "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", new JHashMap[String, String]()),
      null, null, new JHashMap[String, String]()), null, new JHashMap[String, String](), null, null, "EXTERNAL_TABLE")
    t.getSd.setLocation(Files.createTempDirectory("legacy").toUri.toString)
    client.createTable(t)
    assert(!rows("SHOW TABLES IN paimon.ours").map(_(1)).contains("legacy"))
    val read = intercept[MetastoreException](sql("SELECT * FROM paimon.ours.legacy").collect())
    assert(read.getMessage.contains("ours.legacy is not a Paimon table") && read.getMessage.contains("MapredParquetInputFormat"))
    val create = intercept[MetastoreException](sql("CREATE TABLE paimon.ours.legacy (a INT)"))
    assert(create.getMessage.contains("not a Paimon table"))
    val upper = intercept[InvalidIdentifierException](sql("CREATE TABLE paimon.ours.Upper (a INT)"))
    assert(upper.getMessage.contains("lower-case"))
    val column = intercept[InvalidIdentifierException](sql("CREATE TABLE paimon.ours.cols (Amount INT)"))
    assert(column.getMessage.contains("'Amount'") && !Files.exists(metastore.warehouse.resolve("ours.db/cols")))
  }

  test("a registration or schema change the metastore refuses leaves nothing behind") {
    // Hive 2.3 takes table names of ASCII word characters (and some punctuation) only; ours may hold any letter.
    val refused = intercept[MetastoreException](sql("CREATE TABLE paimon.ours.`café` (a INT)"))
    assert(refused.getMessage.contains(metastore.uri), refused.getMessage)
    assert(!Files.exists(metastore.warehouse.resolve("ours.db/café")) && !client.tableExists("ours", "café"))
    // Turning on metastore partitions would change the record's partition keys, which Hive refuses.
    sql("CREATE TABLE paimon.ours.parts (a INT, p STRING) PARTITIONED BY (p)")
    val schemas = metastore.warehouse.resolve("ours.db/parts/schema")
    val alter = intercept[MetastoreException](sql("ALTER TABLE paimon.ours.parts SET TBLPROPERTIES ('metastore.partitioned-table' = 'true')"))
    assert(alter.getMessage.contains("alter table ours.parts"), alter.getMessage)
    assert(Files.list(schemas).iterator().asScala.map(_.getFileName.toString).toSeq == Seq("schema-0"))
    assert(!client.getTable("ours", "parts").getParameters.containsKey("metastore.partitioned-table"))
    sql("INSERT INTO paimon.ours.parts VALUES (1, 'x')")
    assert(rows("SELECT * FROM paimon.ours.parts") == Seq(Seq(1, "x")))
  }

  test("hive-catalog storage registers the Iceberg metadata in the metastore as Paimon's committer does, for Iceberg's Hive catalog") {
    sql("CREATE DATABASE paimon.ice")
    sql("CREATE TABLE paimon.ice.events (id INT, v STRING, dt STRING) PARTITIONED BY (dt) " +
      "TBLPROPERTIES ('metadata.iceberg.storage' = 'hive-catalog')")
    // By default its Iceberg table would be ice.events: the Paimon table's own record.
    val clash = intercept[UnsupportedFeatureException](sql("INSERT INTO paimon.ice.events VALUES (1, 'a', 'd1')"))
    assert(clash.getMessage.contains("metadata.iceberg.database"), clash.getMessage)
    assert(!Files.exists(metastore.warehouse.resolve("ice.db/events/snapshot")))
    sql("ALTER TABLE paimon.ice.events SET TBLPROPERTIES ('metadata.iceberg.database' = 'ice_iceberg')")
    sql("INSERT INTO paimon.ice.events VALUES (1, 'a', 'd1'), (2, 'b', 'd2')")
    sql("DELETE FROM paimon.ice.events WHERE id = 1")
    sql("INSERT INTO paimon.ice.events VALUES (3, 'c', 'd1')")
    val params = client.getTable("ice_iceberg", "events").getParameters.asScala
    assert(params("table_type") == "ICEBERG" && params("metadata_location").endsWith("/v3.metadata.json") &&
      params("previous_metadata_location").endsWith("/v2.metadata.json"), params)
    val iceberg = new org.apache.iceberg.hive.HiveCatalog()
    iceberg.setConf(metastore.clientConf)
    iceberg.initialize("hms", Map("uri" -> metastore.uri).asJava)
    val events = iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("ice_iceberg", "events"))
    assert(IcebergJava.rows(events, None) == rows("SELECT * FROM paimon.ice.events") && rows("SELECT * FROM paimon.ice.events").size == 2)
    assert(IcebergJava.rows(events, Some(1L)) == rows("SELECT * FROM paimon.ice.events VERSION AS OF 1"))
    // Paimon's Java core registers its own like table alike, in a database of the same layout (its committer
    // takes the metastore from metadata.iceberg.uri alone).
    javaPaimon.createTable("theirs_ice.events", Schema.newBuilder().column("id", DataTypes.INT())
      .column("v", DataTypes.STRING()).column("dt", DataTypes.STRING()).partitionKeys("dt")
      .option("metadata.iceberg.storage", "hive-catalog").option("metadata.iceberg.database", "theirs_iceberg")
      .option("metadata.iceberg.uri", metastore.uri).build())
    javaPaimon.insert("theirs_ice.events", Seq(1, "a", "d1"))
    def registered(db: String) = {
      val (kind, sd, keys, parameters) = record(db, "events")
      // The metastore counts the files under the location itself.
      (kind, sd, keys, parameters -- Seq("metadata_location", "previous_metadata_location", "numFiles", "totalSize"))
    }
    assert(registered("ice_iceberg") == registered("theirs_iceberg"))
    assert(client.getDatabase("ice_iceberg").getLocationUri.endsWith("/iceberg/ice") &&
      client.getDatabase("theirs_iceberg").getLocationUri.endsWith("/iceberg/theirs_ice"))
    // A filesystem catalog's table names its metastore by metadata.iceberg.uri, and is refused without one.
    spark.conf.set("spark.sql.catalog.files", classOf[paimonspark.spark.PaimonCatalog].getName)
    spark.conf.set("spark.sql.catalog.files.warehouse", Files.createTempDirectory("files").toUri.toString)
    sql("CREATE DATABASE files.db")
    sql("CREATE TABLE files.db.logs (id INT) TBLPROPERTIES ('metadata.iceberg.storage' = 'hive-catalog')")
    val nowhere = intercept[InvalidOptionException](sql("INSERT INTO files.db.logs VALUES (1)"))
    assert(nowhere.getMessage.contains("metadata.iceberg.uri"), nowhere.getMessage)
    sql(s"ALTER TABLE files.db.logs SET TBLPROPERTIES ('metadata.iceberg.uri' = '${metastore.uri}')")
    sql("INSERT INTO files.db.logs VALUES (1), (2)")
    assert(IcebergJava.rows(iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "logs")), None) ==
      Seq(Seq(1), Seq(2)))
  }

  test("a metastore that does not answer, or answers as Hive 4 does, is named, before anything is written") {
    val port = paimonspark.Loopback.freePort()
    val e = intercept[MetastoreException](LocalSession.onWarehouse("metastore-down", warehouse,
      "spark.sql.catalog.down.metastore" -> "hive", "spark.sql.catalog.down.uri" -> s"thrift://127.0.0.1:$port",
      "spark.sql.catalog.down.hive.metastore.connect.retries" -> "1",
      "spark.sql.catalog.down.warehouse" -> warehouse, "spark.sql.catalog.down" -> classOf[paimonspark.spark.PaimonCatalog].getName)
      .sql("SHOW NAMESPACES IN down").collect())
    assert(e.getMessage.contains(s"thrift://127.0.0.1:$port"), e.getMessage)
    // A Hive 4 server answers the 2.3 client's get_table with "Invalid method name".
    val hive4 = intercept[MetastoreException](LocalSession.onWarehouse("metastore-hive4", warehouse,
      "spark.sql.catalog.hive4.metastore" -> "hive", "spark.sql.catalog.hive4.uri" -> metastore.hive4Uri,
      "spark.sql.catalog.hive4.warehouse" -> warehouse, "spark.sql.catalog.hive4" -> classOf[paimonspark.spark.PaimonCatalog].getName)
      .sql("SELECT * FROM hive4.ours.parts").collect())
    assert(hive4.getMessage.contains(metastore.hive4Uri) && hive4.getMessage.contains("Hive 4"), hive4.getMessage)
  }
}
