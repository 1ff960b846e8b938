package paimonspark.catalog.rest

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.DataTypes
import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{CatalogAccessException, SchemaChangeException}
import paimonspark.fs.StorageCredentials
import paimonspark.interop.JavaPaimon
import paimonspark.spark.LocalSession

/**
 * Paimon's REST catalog against Apache Paimon's own server (RestServer): the catalog `paimon` of our session
 * and Paimon's Java `RESTCatalog` over one server, each listing, reading and changing what the other made.
 * The server keeps the tables' schemas and latest snapshots; we write data files and manifests under the
 * path it names and commit through it.
 */
class RestCatalogSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val server = RestServer.start()
  private lazy val spark: SparkSession = LocalSession.onWarehouse("rest-catalog", server.warehouse,
    (server.catalogOptions - "warehouse" + ("header.X-Paimon-Team" -> "lake")).map { case (k, v) =>
      s"spark.sql.catalog.paimon.$k" -> v }.toSeq: _*)
  private lazy val java = new JavaPaimon(server.warehouse, server.catalogOptions - "warehouse")

  override def afterAll(): Unit = { java.close(); spark.stop(); server.stop() }

  private def sql(text: String): Seq[Row] = spark.sql(text).collect().toSeq
  private def rows(text: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(text).map(_.toSeq))
  private def tableDir(db: String, t: String): Path = Path.of(java.table(s"$db.$t").location().toUri.getPath)

  test("the catalog starts on the server's config; databases either side creates the other lists") {
    sql("CREATE DATABASE paimon.rdb")
    java.catalog.createDatabase("jdb", false)
    assert(java.catalog.listDatabases().asScala.toSet == Set("default", "rdb", "jdb"))
    assert(sql("SHOW DATABASES IN paimon").map(_.getString(0)).toSet == Set("default", "rdb", "jdb"))
    assert(server.requests.exists(_.startsWith("GET /v1/config?warehouse=rest_wh 200")))
    // header.* options go with every request: the first is ours, Java's catalog started after.
    assert(server.headerNames.head.exists(_.equalsIgnoreCase("X-Paimon-Team")), server.headerNames.head)
  }

  test("a table we create and write is Java's to list and read, committed through the server") {
    sql("CREATE TABLE paimon.rdb.pk (id INT, v STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    sql("INSERT INTO paimon.rdb.pk VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    sql("INSERT INTO paimon.rdb.pk VALUES (2, 'b2', 20), (4, 'd', 4)")
    sql("DELETE FROM paimon.rdb.pk WHERE id = 3")
    val expected = Seq(Seq(1, "a", 1L), Seq(2, "b2", 20L), Seq(4, "d", 4L))
    assert(java.listTables("rdb") == Seq("pk"))
    assert(java.rows("rdb.pk") == expected)
    assert(rows("SELECT * FROM paimon.rdb.pk") == expected)
    val commits = server.requests.filter(_.matches("POST /v1/paimon/databases/rdb/tables/pk/commit 200"))
    assert(commits.size == java.latestId("rdb.pk").get, server.requests.mkString("\n"))
    // The schema file is the server's: it wrote schema-0 where it placed the table.
    assert(Files.exists(tableDir("rdb", "pk").resolve("schema/schema-0")))
  }

  test("the latest snapshot is the server's answer, not the directory's") {
    sql("CREATE TABLE paimon.rdb.latest (id INT)")
    sql("INSERT INTO paimon.rdb.latest VALUES (1)")
    val snapshots = tableDir("rdb", "latest").resolve("snapshot")
    // A snapshot file the server never committed: a directory listing would take it as the latest.
    Files.copy(snapshots.resolve("snapshot-1"), snapshots.resolve("snapshot-7"))
    Files.writeString(snapshots.resolve("LATEST"), "7")
    sql("INSERT INTO paimon.rdb.latest VALUES (2)")
    assert(rows("SELECT * FROM paimon.rdb.latest") == Seq(Seq(1), Seq(2)))
    assert(java.latestId("rdb.latest").contains(2L))
    assert(java.rows("rdb.latest") == Seq(Seq(1), Seq(2)))
  }

  test("a table Java creates and writes we read, upsert and alter, and Java reads what we did") {
    val schema = Schema.newBuilder().column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
      .primaryKey("id").option("bucket", "1").build()
    java.createTable("jdb.jt", schema)
    java.insert("jdb.jt", Seq(1, "a"), Seq(2, "b"))
    assert(sql("SHOW TABLES IN paimon.jdb").map(_.getString(1)) == Seq("jt"))
    assert(rows("SELECT * FROM paimon.jdb.jt") == Seq(Seq(1, "a"), Seq(2, "b")))
    sql("INSERT INTO paimon.jdb.jt VALUES (2, 'b2'), (3, 'c')")
    sql("ALTER TABLE paimon.jdb.jt ADD COLUMNS (n BIGINT)")
    sql("ALTER TABLE paimon.jdb.jt SET TBLPROPERTIES ('snapshot.num-retained.max' = '20', 'owner-team' = 'lake')")
    sql("INSERT INTO paimon.jdb.jt VALUES (4, 'd', 40)")
    assert(java.rows("jdb.jt") == Seq(Seq(1, "a", null), Seq(2, "b2", null), Seq(3, "c", null), Seq(4, "d", 40L)))
    val options = java.table("jdb.jt").options().asScala
    assert(options.get("snapshot.num-retained.max").contains("20") && options.get("owner-team").contains("lake"))
    java.alter("jdb.jt", SchemaChange.addColumn("w", DataTypes.STRING()))
    java.insert("jdb.jt", Seq(5, "e", 50L, "w5"))
    assert(rows("SELECT id, w FROM paimon.jdb.jt WHERE id >= 4") == Seq(Seq(4, null), Seq(5, "w5")))
  }

  test("row-level DML, tags, time travel, changes, streams and rollbacks on tables of the REST catalog") {
    sql("CREATE TABLE paimon.rdb.hist (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', " +
      "'changelog-producer' = 'lookup')")
    sql("INSERT INTO paimon.rdb.hist VALUES (1, 'a'), (2, 'b')")
    sql("CALL paimon.sys.create_tag(table => 'rdb.hist', tag => 'first')")
    sql("UPDATE paimon.rdb.hist SET v = 'b2' WHERE id = 2")
    sql("MERGE INTO paimon.rdb.hist t USING (SELECT 3 AS id, 'c' AS v) s ON t.id = s.id " +
      "WHEN NOT MATCHED THEN INSERT *")
    assert(rows("SELECT * FROM paimon.rdb.hist VERSION AS OF 'first'") == Seq(Seq(1, "a"), Seq(2, "b")))
    assert(java.atTag("rdb.hist", "first") == Seq(Seq(1, "a"), Seq(2, "b")))
    assert(java.rows("rdb.hist") == Seq(Seq(1, "a"), Seq(2, "b2"), Seq(3, "c")))
    val latest = java.latestId("rdb.hist").get
    val changes = rows(s"SELECT rowkind, id, v FROM paimon.rdb.`hist$$audit_log` WITH ('incremental-between' = '0,$latest')")
    assert(changes == java.rows("rdb.hist$audit_log", "incremental-between" -> s"0,$latest"))
    assert(changes.contains(Seq("-U", 2, "b")) && changes.contains(Seq("+U", 2, "b2")))
    // A stream from one table of the catalog into another: the source's and the sink's snapshots are the server's.
    sql("CREATE TABLE paimon.rdb.hist_copy (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    val checkpoint = Files.createTempDirectory("rest-stream").toString
    val stream = spark.readStream.table("paimon.rdb.hist").writeStream.option("checkpointLocation", checkpoint)
      .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).toTable("paimon.rdb.hist_copy")
    stream.awaitTermination()
    assert(java.rows("rdb.hist_copy") == Seq(Seq(1, "a"), Seq(2, "b2"), Seq(3, "c")))
    // Rollbacks are the server's, by tag and by snapshot: it removes what came after, and commits go on from there.
    val tagged = java.tags("rdb.hist")("first")._1
    sql("CALL paimon.sys.rollback(table => 'rdb.hist', version => 'first')")
    assert(java.latestId("rdb.hist").contains(tagged) && server.requests.exists(_.contains("/tables/hist/rollback 200")))
    assert(java.rows("rdb.hist") == Seq(Seq(1, "a"), Seq(2, "b")) && rows("SELECT * FROM paimon.rdb.hist") == java.rows("rdb.hist"))
    sql("INSERT INTO paimon.rdb.hist VALUES (4, 'd')")
    sql(s"CALL paimon.sys.rollback(table => 'rdb.hist', snapshot => $tagged)")
    assert(java.rows("rdb.hist") == Seq(Seq(1, "a"), Seq(2, "b")))
    assert(intercept[paimonspark.SnapshotNotFoundException](
      sql("CALL paimon.sys.rollback(table => 'rdb.hist', snapshot => 99)")).getMessage.contains("99"))
  }

  test("branches are the server's: created, written, fast-forwarded, renamed and dropped through it, both ways") {
    sql("CREATE TABLE paimon.rdb.br (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql("INSERT INTO paimon.rdb.br VALUES (1, 'a')")
    sql("CALL paimon.sys.create_tag(table => 'rdb.br', tag => 'first')")
    sql("INSERT INTO paimon.rdb.br VALUES (2, 'b')")
    sql("CALL paimon.sys.create_branch(table => 'rdb.br', branch => 'dev', tag => 'first')")
    sql("CALL paimon.sys.create_branch(table => 'rdb.br', branch => 'empty')")
    assert(server.requests.count(_.startsWith("POST /v1/paimon/databases/rdb/tables/br/branches 200")) == 2)
    assert(java.table("rdb.br").branchManager().branches().asScala.toSet == Set("dev", "empty"))
    assert(rows("SELECT * FROM paimon.rdb.`br$branch_dev`") == Seq(Seq(1, "a")) && java.rows("rdb.br$branch_dev") == Seq(Seq(1, "a")))
    assert(rows("SELECT * FROM paimon.rdb.`br$branch_empty`").isEmpty && java.rows("rdb.br$branch_empty").isEmpty)
    // A commit on a branch goes to the server under the branch's name; main and the branch each keep their own.
    sql("INSERT INTO paimon.rdb.`br$branch_dev` VALUES (3, 'c')")
    assert(server.requests.exists(_.startsWith("POST /v1/paimon/databases/rdb/tables/br%24branch_dev/commit 200")))
    java.insert("rdb.br$branch_dev", Seq(4, "d"))
    val dev = Seq(Seq(1, "a"), Seq(3, "c"), Seq(4, "d"))
    assert(rows("SELECT * FROM paimon.rdb.`br$branch_dev`") == dev && java.rows("rdb.br$branch_dev") == dev)
    assert(rows("SELECT * FROM paimon.rdb.br") == Seq(Seq(1, "a"), Seq(2, "b")))
    // Main takes the branch's history on the server's word; commits on main go on from the branch's latest.
    sql("CALL paimon.sys.fast_forward(table => 'rdb.br', branch => 'dev')")
    assert(server.requests.exists(_.startsWith("POST /v1/paimon/databases/rdb/tables/br/branches/dev/forward 200")))
    assert(java.rows("rdb.br") == dev && rows("SELECT * FROM paimon.rdb.br") == dev)
    sql("INSERT INTO paimon.rdb.br VALUES (5, 'e')")
    assert(java.rows("rdb.br") == dev :+ Seq(5, "e"))
    sql("CALL paimon.sys.rename_branch(table => 'rdb.br', from_branch => 'empty', to_branch => 'scratch')")
    java.table("rdb.br").createBranch("java_made", "first")
    assert(rows("SELECT branch_name FROM paimon.rdb.`br$branches`") == Seq(Seq("dev"), Seq("java_made"), Seq("scratch")))
    assert(rows("SELECT * FROM paimon.rdb.`br$branch_java_made`") == Seq(Seq(1, "a")))
    sql("CALL paimon.sys.delete_branch(table => 'rdb.br', branch => 'scratch,java_made')")
    assert(java.table("rdb.br").branchManager().branches().asScala == Seq("dev"))
    assert(server.requests.exists(_.startsWith("DELETE /v1/paimon/databases/rdb/tables/br/branches/scratch 200")))
    // Checked here before a request: a branch that exists, a tag that does not.
    intercept[paimonspark.VersionAlreadyExistsException](
      sql("CALL paimon.sys.create_branch(table => 'rdb.br', branch => 'dev')"))
    intercept[paimonspark.TagNotFoundException](
      sql("CALL paimon.sys.create_branch(table => 'rdb.br', branch => 'x', tag => 'nope')"))
  }

  test("storage credentials the server hands out (data-token.enabled) reach its table's files, only those; " +
    "refreshed an hour before they expire") {
    val tokens = RestServer.start(warehouse = "tokens_wh", defaults = Map(RestCatalog.DataToken -> "true"))
    val key = TokenCheckedFileSystem.TokenKey
    def tokenRequests(t: String) = tokens.requests.count(_.startsWith(s"GET /v1/paimon/databases/tdb/tables/$t/token 200"))
    def refusal(e: Throwable, token: String) = assert(Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
      .exists(c => String.valueOf(c.getMessage).contains(s"token $token is not valid")), e)
    try {
      spark.conf.set(TokenCheckedFileSystem.Impl._1, TokenCheckedFileSystem.Impl._2)
      spark.conf.set("spark.sql.catalog.tok", "paimonspark.spark.PaimonCatalog")
      tokens.catalogOptions.foreach { case (k, v) => spark.conf.set(s"spark.sql.catalog.tok.$k", v) }
      val inTwoHours = System.currentTimeMillis() + 2 * StorageCredentials.RefreshMillis
      tokens.setToken("tdb", "t", inTwoHours, key -> "alpha")
      tokens.setToken("tdb", "u", inTwoHours, key -> "beta")
      TokenCheckedFileSystem.valid = Set("alpha", "beta")
      sql("CREATE DATABASE tok.tdb")
      sql("CREATE TABLE tok.tdb.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
      sql("CREATE TABLE tok.tdb.u (id INT)")
      sql("INSERT INTO tok.tdb.t VALUES (1, 'a'), (2, 'b')")
      sql("UPDATE tok.tdb.t SET v = 'b2' WHERE id = 2")
      sql("INSERT INTO tok.tdb.u VALUES (7)")
      assert(rows("SELECT * FROM tok.tdb.t") == Seq(Seq(1, "a"), Seq(2, "b2")) && rows("SELECT * FROM tok.tdb.u") == Seq(Seq(7)))
      assert(tokenRequests("t") > 0 && tokenRequests("u") > 0)
      val location = s"${TokenCheckedFileSystem.Scheme}:${tokens.dir.resolve("data/tdb.db/t")}"
      // Each table's own: with alpha revoked, t is refused and u reads on; the session, without any, is refused.
      TokenCheckedFileSystem.valid = Set("beta")
      val revoked = intercept[Exception](sql("SELECT * FROM tok.tdb.t"))
      refusal(revoked, "alpha")
      assert(Iterator.iterate[Throwable](revoked)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[paimonspark.StorageException]))
      assert(rows("SELECT * FROM tok.tdb.u") == Seq(Seq(7)))
      refusal(intercept[Exception](spark.read.format("paimon").load(location).collect()), "(none)")
      // Credentials are fetched again once they have less than an hour to live, not before.
      val catalog = new RestCatalog(RestSettings("tok", tokens.catalogOptions), paimonspark.spark.catalog.SessionFileIO())
      val soon = System.currentTimeMillis() + StorageCredentials.RefreshMillis + 4000
      tokens.setToken("tdb", "t", soon, key -> "gamma")
      TokenCheckedFileSystem.valid = Set("gamma")
      val table = catalog.loadTable("tdb", "t")
      assert(table.schemaManager.listIds() == Seq(0L))
      val fetched = tokenRequests("t")
      tokens.setToken("tdb", "t", inTwoHours, key -> "delta")
      TokenCheckedFileSystem.valid = Set("delta")
      refusal(intercept[Exception](table.schemaManager.listIds()), "gamma")
      Thread.sleep(math.max(0L, soon - StorageCredentials.RefreshMillis - System.currentTimeMillis()) + 200)
      assert(table.schemaManager.listIds() == Seq(0L) && tokenRequests("t") == fetched + 1)
      assert(rows("SELECT * FROM tok.tdb.t") == Seq(Seq(1, "a"), Seq(2, "b2")))
    } finally {
      TokenCheckedFileSystem.valid = Set.empty
      spark.conf.unset(TokenCheckedFileSystem.Impl._1)
      tokens.stop()
    }
  }

  test("partitions marked done: mark-event goes to the server, done-partition is refused as Paimon refuses it") {
    sql("CREATE TABLE paimon.rdb.parts (id INT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES (" +
      "'metastore.partitioned-table' = 'true', 'partition.mark-done-action' = 'success-file,mark-event')")
    sql("INSERT INTO paimon.rdb.parts VALUES (1, 'd1')")
    sql("CALL paimon.sys.mark_partition_done(table => 'rdb.parts', partitions => 'dt=d1')")
    assert(server.requests.exists(_.startsWith("POST /v1/paimon/databases/rdb/tables/parts/partitions/mark 200")))
    assert(Files.exists(tableDir("rdb", "parts").resolve("dt=d1/_SUCCESS")))
    sql("ALTER TABLE paimon.rdb.parts SET TBLPROPERTIES ('partition.mark-done-action' = 'done-partition')")
    val refused = intercept[paimonspark.UnsupportedFeatureException](
      sql("CALL paimon.sys.mark_partition_done(table => 'rdb.parts', partitions => 'dt=d1')"))
    assert(refused.getMessage.contains("without metastore"), refused.getMessage)
  }

  test("an external table (Java's, at a path the server does not manage) is refused by name; LOCATION is refused") {
    val elsewhere = Files.createTempDirectory("rest-external")
    java.createTable("rdb.ext", Schema.newBuilder().column("id", DataTypes.INT())
      .option("path", elsewhere.toUri.toString).build())
    val refused = intercept[paimonspark.UnsupportedFeatureException](sql("SELECT * FROM paimon.rdb.ext"))
    assert(refused.getMessage.contains("rdb.ext") && refused.getMessage.contains("external"), refused.getMessage)
    intercept[paimonspark.UnsupportedFeatureException](
      sql(s"CREATE TABLE paimon.rdb.located (id INT) LOCATION '${elsewhere.resolve("t").toUri}'"))
  }

  test("a change Paimon's rules refuse is refused here, before anything reaches the server") {
    sql("CREATE TABLE paimon.rdb.keyed (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id')")
    val before = server.requests.count(_.startsWith("POST /v1/paimon/databases/rdb/tables/keyed "))
    intercept[SchemaChangeException](sql("ALTER TABLE paimon.rdb.keyed DROP COLUMN id"))
    assert(server.requests.count(_.startsWith("POST /v1/paimon/databases/rdb/tables/keyed ")) == before)
  }

  test("more tables than a page are all listed; a renamed table reads and takes writes; a dropped one is gone") {
    java.catalog.createDatabase("many", false)
    (1 to 105).foreach { i =>
      java.catalog.createTable(org.apache.paimon.catalog.Identifier.create("many", f"t$i%03d"),
        Schema.newBuilder().column("a", DataTypes.INT()).build(), false)
    }
    assert(sql("SHOW TABLES IN paimon.many").map(_.getString(1)) == (1 to 105).map(i => f"t$i%03d"))
    assert(server.requests.exists(_.matches("GET /v1/paimon/databases/many/tables\\?pageToken=.* 200")))
    sql("CREATE TABLE paimon.rdb.old_name (id INT, v STRING)")
    sql("INSERT INTO paimon.rdb.old_name VALUES (1, 'a')")
    sql("ALTER TABLE paimon.rdb.old_name RENAME TO rdb.new_name")
    sql("INSERT INTO paimon.rdb.new_name VALUES (2, 'b')")
    assert(rows("SELECT * FROM paimon.rdb.new_name") == Seq(Seq(1, "a"), Seq(2, "b")))
    assert(java.rows("rdb.new_name") == Seq(Seq(1, "a"), Seq(2, "b")))
    val dir = tableDir("rdb", "new_name")
    sql("DROP TABLE paimon.rdb.new_name")
    assert(!java.listTables("rdb").contains("new_name") && !Files.exists(dir))
  }

  test("a table the server refuses (403) is a typed error naming the catalog, and nothing is written to it") {
    sql("CREATE TABLE paimon.rdb.secret (id INT)")
    sql("INSERT INTO paimon.rdb.secret VALUES (1)")
    val dir = tableDir("rdb", "secret")
    def files = Files.walk(dir).iterator().asScala.map(_.toString).toSet
    val before = files
    server.deny("rdb", "secret")
    def refusal(e: Throwable) = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case c: CatalogAccessException => c }.getOrElse(fail("not a CatalogAccessException", e))
    Seq("SELECT * FROM paimon.rdb.secret", "INSERT INTO paimon.rdb.secret VALUES (2)").foreach { statement =>
      val refused = refusal(intercept[Exception](sql(statement)))
      assert(refused.value == "paimon" && refused.getMessage.contains("403"), refused.getMessage)
    }
    assert(files == before)
  }

  test("a wrong token is refused when the catalog starts, naming the catalog; the token shows nowhere") {
    val options = server.catalogOptions + ("token" -> "not-the-token")
    options.foreach { case (k, v) => spark.conf.set(s"spark.sql.catalog.bad.$k", v) }
    spark.conf.set("spark.sql.catalog.bad", classOf[paimonspark.spark.PaimonCatalog].getName)
    val before = server.requests.size
    val e = intercept[Exception](sql("SHOW DATABASES IN bad"))
    val refusal = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst {
      case c: CatalogAccessException => c
    }.getOrElse(fail(s"not a CatalogAccessException", e))
    assert(refusal.value == "bad" && refusal.getMessage.contains("401"), refusal.getMessage)
    assert(server.requests.drop(before).forall(_.endsWith(" 401")), server.requests.drop(before))
    assert(!Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains("not-the-token")))
    val listed = sql("SELECT * FROM paimon.sys.catalog_options").map(r => r.getString(0) -> r.getString(1)).toMap
    assert(listed("uri") == server.url && !listed.values.exists(_.contains(server.token)), listed)
  }
}
