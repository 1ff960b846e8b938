package paimonspark.catalog.jdbc

import java.nio.file.{Files, Path}
import java.sql.DriverManager
import java.util.concurrent.{Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.DurationInt
import scala.jdk.CollectionConverters._

import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.DataTypes
import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.MetastoreException
import paimonspark.interop.JavaPaimon
import paimonspark.spark.LocalSession

/**
 * Paimon's JDBC catalog on an SQLite file shared with Paimon's Java `JdbcCatalog`: each lists, reads, writes
 * and alters what the other made, the rows are Paimon's own, and the distributed lock in the database holds
 * our writers and Java's off each other. The same against a real PostgreSQL server when one is installed.
 */
class JdbcCatalogSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val dir = Files.createTempDirectory("jdbc-catalog")
  private lazy val uri = s"jdbc:sqlite:${dir.resolve("catalog.db")}"
  private lazy val warehouse = dir.resolve("warehouse")
  private def options(url: String, wh: Path, extra: (String, String)*) =
    Map("metastore" -> "jdbc", "uri" -> url, "lock.enabled" -> "true", "lock-acquire-timeout" -> "30 s") ++ extra
  private lazy val spark: SparkSession = LocalSession.onWarehouse("jdbc-catalog", warehouse.toString,
    (options(uri, warehouse) - "warehouse").map { case (k, v) => s"spark.sql.catalog.paimon.$k" -> v }.toSeq: _*)
  private lazy val java = new JavaPaimon(warehouse.toString, options(uri, warehouse))

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String): Seq[Row] = spark.sql(text).collect().toSeq
  private def rows(text: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(text).map(_.toSeq))

  /** Rows of the catalog database, as Paimon's statements would read them. */
  private def catalogRows(url: String, query: String): Seq[Seq[String]] = {
    val c = DriverManager.getConnection(url)
    try {
      val r = c.createStatement().executeQuery(query)
      val n = r.getMetaData.getColumnCount
      Iterator.continually(r).takeWhile(_.next()).map(row => (1 to n).map(row.getString)).toList
    } finally c.close()
  }

  /** The round trip both catalogs must make on one catalog database: each reads, writes and alters the other's. */
  private def bothWays(session: SparkSession, javas: JavaPaimon, catalog: String): Unit = {
    def q(text: String) = JavaPaimon.sorted(session.sql(text).collect().toSeq.map(_.toSeq))
    session.sql(s"CREATE DATABASE $catalog.ours")
    session.sql(s"CREATE TABLE $catalog.ours.pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    session.sql(s"INSERT INTO $catalog.ours.pk VALUES (1, 'a'), (2, 'b')")
    session.sql(s"UPDATE $catalog.ours.pk SET v = 'b2' WHERE id = 2")
    assert(javas.catalog.listDatabases().asScala.toSet.contains("ours") && javas.listTables("ours") == Seq("pk"))
    assert(javas.rows("ours.pk") == Seq(Seq(1, "a"), Seq(2, "b2")))
    javas.createTable("theirs.jt", Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").build())
    javas.insert("theirs.jt", Seq(1, "x"))
    assert(session.sql(s"SHOW TABLES IN $catalog.theirs").collect().map(_.getString(1)).toSeq == Seq("jt"))
    session.sql(s"INSERT INTO $catalog.theirs.jt VALUES (1, 'x2'), (2, 'y')")
    session.sql(s"ALTER TABLE $catalog.theirs.jt ADD COLUMNS (n BIGINT)")
    assert(javas.rows("theirs.jt") == Seq(Seq(1, "x2", null), Seq(2, "y", null)))
    javas.alter("ours.pk", SchemaChange.addColumn("w", DataTypes.STRING()))
    javas.insert("ours.pk", Seq(3, "c", "w3"))
    assert(q(s"SELECT * FROM $catalog.ours.pk") == Seq(Seq(1, "a", null), Seq(2, "b2", null), Seq(3, "c", "w3")))
  }

  test("tables either side creates the other lists, reads, writes and alters, in Paimon's rows") {
    bothWays(spark, java, "paimon")
    assert(catalogRows(uri, "SELECT catalog_key, database_name, table_name FROM paimon_tables ORDER BY 2") ==
      Seq(Seq("jdbc", "ours", "pk"), Seq("jdbc", "theirs", "jt")))
    val ours = catalogRows(uri, "SELECT property_key, property_value FROM paimon_database_properties " +
      "WHERE database_name = 'ours'").map(r => r.head -> r(1)).toMap
    assert(ours("exists") == "true" && ours("location") == s"$warehouse/ours.db")
    // sync-all-properties: the table's options as Java keeps them, its primary key among them, kept after ALTER.
    val props = catalogRows(uri, "SELECT property_key, property_value FROM paimon_table_properties " +
      "WHERE table_name = 'jt'").map(r => r.head -> r(1)).toMap
    assert(props.get("primary-key").contains("id") && props.get("bucket").contains("1"), props)
  }

  test("rename, drop, database properties and repair, as Paimon keeps them") {
    sql("CREATE TABLE paimon.ours.old_name (id INT)")
    sql("INSERT INTO paimon.ours.old_name VALUES (1)")
    sql("ALTER TABLE paimon.ours.old_name RENAME TO ours.new_name")
    assert(java.rows("ours.new_name") == Seq(Seq(1)) && !java.listTables("ours").contains("old_name"))
    sql("ALTER DATABASE paimon.ours SET DBPROPERTIES ('team' = 'lake')")
    assert(java.catalog.getDatabase("ours").options().asScala.get("team").contains("lake"))
    sql("DROP TABLE paimon.ours.new_name")
    assert(!Files.exists(warehouse.resolve("ours.db/new_name")) && !java.listTables("ours").contains("new_name"))
    // A table whose row was lost is found again by repair, from its files.
    sql("CREATE TABLE paimon.ours.lost (id INT)")
    val c = DriverManager.getConnection(uri)
    try c.createStatement().executeUpdate("DELETE FROM paimon_tables WHERE table_name = 'lost'") finally c.close()
    assert(!sql("SHOW TABLES IN paimon.ours").map(_.getString(1)).contains("lost"))
    sql("CALL paimon.sys.repair(database_or_table => 'ours.lost')")
    assert(java.listTables("ours").contains("lost"))
  }

  test("the lock in the catalog database holds our commits and Java's alike while another holder has it") {
    sql("CREATE TABLE paimon.ours.locked (id INT)")
    val pool = ExecutionContext.fromExecutorService(Executors.newFixedThreadPool(2))
    def holdLock(): Unit = {
      val c = DriverManager.getConnection(uri)
      try c.createStatement().executeUpdate("INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) " +
        "VALUES ('jdbc.ours.locked', 600)") finally c.close()
    }
    def release(): Unit = {
      val c = DriverManager.getConnection(uri)
      try c.createStatement().executeUpdate("DELETE FROM paimon_distributed_locks WHERE lock_id = 'jdbc.ours.locked'")
      finally c.close()
    }
    try {
      holdLock()
      val ours = Future(sql("INSERT INTO paimon.ours.locked VALUES (1)"))(pool)
      val javas = Future(java.insert("ours.locked", Seq(2)))(pool)
      Thread.sleep(3000)
      assert(!ours.isCompleted && !javas.isCompleted, "a commit went through while another held the lock")
      assert(java.latestId("ours.locked").isEmpty)
      release()
      Seq(ours, javas).foreach(f => Await.result(f, 60.seconds))
      assert(java.rows("ours.locked") == Seq(Seq(1), Seq(2)) && java.latestId("ours.locked").contains(2L))
    } finally { release(); pool.shutdown(); pool.awaitTermination(10, TimeUnit.SECONDS) }
  }

  test("a URL no driver on the classpath takes is an error naming the catalog database, before anything is written") {
    val bad = options("jdbc:nosuchdb://127.0.0.1/x?password=hunter2", warehouse)
    bad.foreach { case (k, v) => spark.conf.set(s"spark.sql.catalog.nodriver.$k", v) }
    spark.conf.set("spark.sql.catalog.nodriver.warehouse", dir.resolve("other").toString)
    spark.conf.set("spark.sql.catalog.nodriver", classOf[paimonspark.spark.PaimonCatalog].getName)
    val e = intercept[Exception](sql("SHOW DATABASES IN nodriver"))
    val cause = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst { case m: MetastoreException => m }
      .getOrElse(fail("not a MetastoreException", e))
    assert(cause.getMessage.contains("no JDBC driver") && !cause.getMessage.contains("hunter2"), cause.getMessage)
    assert(!Files.exists(dir.resolve("other")))
  }

  test("PostgreSQL as the catalog database (a real server on 127.0.0.1), when one is installed") {
    assume(PostgresServer.installed, "PostgreSQL is not installed")
    val server = PostgresServer.start()
    try {
      val pgWarehouse = dir.resolve("pg-warehouse")
      val pg = options(server.url, pgWarehouse, "jdbc.user" -> server.user, "jdbc.password" -> server.password,
        "catalog-key" -> "team_a")
      pg.foreach { case (k, v) => spark.conf.set(s"spark.sql.catalog.pg.$k", v) }
      spark.conf.set("spark.sql.catalog.pg.warehouse", pgWarehouse.toString)
      spark.conf.set("spark.sql.catalog.pg", classOf[paimonspark.spark.PaimonCatalog].getName)
      val javas = new JavaPaimon(pgWarehouse.toString, pg)
      try bothWays(spark, javas, "pg") finally javas.close()
      assert(catalogRows(s"${server.url}?user=${server.user}&password=${server.password}",
        "SELECT DISTINCT catalog_key FROM paimon_tables") == Seq(Seq("team_a")))
    } finally server.stop()
  }
}
