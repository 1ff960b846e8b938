"""Paimon's Hive catalog against a real Hive Metastore (tests/support/metastore.py): every feature on a table
registered there, Spark's own Hive tables beside ours in one metastore, writers in two processes under the
metastore's lock, and a writer that dies holding it. What lands in the metastore, held against Paimon's own
Java HiveCatalog, is in the Scala MetastoreCatalogSuite."""

from __future__ import annotations

import json
import os
import time
from typing import Iterator

import pytest
from pyspark.sql import SparkSession

from concurrent_writer import WriterPool
from conftest import new_session, rows
from metastore import Metastore
from paimon_spark import MetastoreError, PaimonTable

# Locks left by a dead holder expire after this long (Hive's hive.txn.timeout, 300 s by default), once the
# metastore's housekeeper (hive.compactor.initiator.on) sees them.
LOCK_TIMEOUT_S = 6
OPTIONS = {"lock.enabled": "true", "lock-acquire-timeout": "60 s", "lock-check-max-sleep": "500 ms"}


@pytest.fixture(scope="module")
def metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metastore]:
    # The housekeeping a production metastore runs, on a short clock.
    server = Metastore(tmp_path_factory.mktemp("hms"), **{
        "hive.compactor.initiator.on": "true", "hive.support.concurrency": "true",
        "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager", "hive.txn.timeout": f"{LOCK_TIMEOUT_S}s",
        "hive.timedout.txn.reaper.start": "1s", "hive.timedout.txn.reaper.interval": "1s"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def spark(metastore: Metastore) -> Iterator[SparkSession]:
    # Spark's own catalog on the same metastore (Hive support), with ours beside it.
    session = new_session(metastore.warehouse, metastore_uri=metastore.uri, catalog_options=OPTIONS, **{
        "spark.sql.catalogImplementation": "hive", "spark.hadoop.hive.metastore.uris": metastore.uri})
    yield session
    session.stop()


def test_every_feature_works_on_a_table_registered_in_the_metastore(spark, metastore, tmp_path):
    spark.sql("CREATE DATABASE paimon.sales")
    spark.sql("""CREATE TABLE paimon.sales.orders (id INT NOT NULL, v STRING, dt STRING) PARTITIONED BY (dt)
                 TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '1', 'changelog-producer' = 'input')""")
    spark.sql("INSERT INTO paimon.sales.orders VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
    spark.sql("CALL paimon.sys.create_tag(table => 'sales.orders', tag => 'first')")
    spark.sql("UPDATE paimon.sales.orders SET v = 'bb' WHERE id = 2")
    spark.sql("DELETE FROM paimon.sales.orders WHERE id = 3")
    spark.sql("""MERGE INTO paimon.sales.orders t USING (SELECT 4 AS id, 'd' AS v, 'd2' AS dt) s
                 ON t.id = s.id AND t.dt = s.dt WHEN NOT MATCHED THEN INSERT *""")
    spark.sql("ALTER TABLE paimon.sales.orders ADD COLUMN qty INT")
    spark.sql("INSERT INTO paimon.sales.orders VALUES (5, 'e', 'd1', 7)")
    assert rows(spark.table("paimon.sales.orders")) == [
        (1, "a", "d1", None), (2, "bb", "d1", None), (4, "d", "d2", None), (5, "e", "d1", 7)]
    assert rows(spark.sql("SELECT id FROM paimon.sales.orders VERSION AS OF 'first'")) == [(1,), (2,), (3,)]
    assert rows(spark.sql("SELECT snapshot_id FROM paimon.sales.`orders$snapshots`")) == [(i,) for i in range(1, 6)]
    spark.sql("CALL paimon.sys.create_branch(table => 'sales.orders', branch => 'dev', tag => 'first')")
    spark.sql("INSERT INTO paimon.sales.`orders$branch_dev` VALUES (9, 'z', 'd9')")
    assert rows(spark.sql("SELECT id FROM paimon.sales.`orders$branch_dev`")) == [(1,), (2,), (3,), (9,)]
    changes = rows(spark.sql("SELECT id, _change_type FROM paimon.sales.orders CHANGES FROM VERSION 2 TO VERSION 3"))
    assert changes == [(2, "update_postimage"), (3, "delete")]
    # A stream of the table, from its start, up to what is committed now.
    stream = (spark.readStream.table("paimon.sales.orders").writeStream.format("memory").queryName("orders_stream")
              .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    stream.awaitTermination(120)
    assert rows(spark.sql("SELECT id FROM orders_stream")) == [(1,), (2,), (4,), (5,)]
    # The metastore's copy of the schema followed the ALTER; the files are where the metastore says.
    assert (metastore.warehouse / "sales.db" / "orders" / "schema" / "schema-1").is_file()
    described = {r.col_name: r.data_type for r in spark.sql("DESCRIBE TABLE paimon.sales.orders").collect()}
    assert described["qty"] == "int"


def test_the_python_api_on_a_metastore_table(spark, metastore):
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.api")
    table = (PaimonTable.create(spark).name("paimon.api.events").column("k", "BIGINT", nullable=False)
             .column("v", "STRING").primary_key("k").option("bucket", "1").execute())
    table.upsert(spark.createDataFrame([(1, "one"), (2, "two")], "k BIGINT, v STRING"))
    table.upsert(spark.createDataFrame([(1, "uno")], "k BIGINT, v STRING"))
    table.create_tag("t1", version=1)
    assert rows(table.to_df()) == [(1, "uno"), (2, "two")]
    assert rows(table.read(version=1)) == [(1, "one"), (2, "two")]
    assert table.latest_snapshot_id() == 2 and [r.tag_name for r in table.tags().collect()] == ["t1"]
    assert (metastore.warehouse / "api.db" / "events" / "tag" / "tag-t1").is_file()


def test_spark_hive_tables_and_paimon_tables_share_one_metastore(spark):
    spark.sql("CREATE TABLE default.hive_parquet (a INT) USING parquet")
    spark.sql("INSERT INTO default.hive_parquet VALUES (1)")
    spark.sql("CREATE TABLE default.ours (a INT) USING paimon")
    spark.sql("INSERT INTO default.ours VALUES (2)")
    # Through spark_catalog both work; our catalog sees the Paimon table only, and names the other clearly.
    assert rows(spark.table("default.hive_parquet")) == [(1,)] and rows(spark.table("default.ours")) == [(2,)]
    assert rows(spark.table("paimon.default.ours")) == [(2,)]
    listed = [r.tableName for r in spark.sql("SHOW TABLES IN paimon.default").collect()]
    assert "ours" in listed and "hive_parquet" not in listed
    with pytest.raises(MetastoreError, match="default.hive_parquet is not a Paimon table") as e:
        spark.table("paimon.default.hive_parquet").collect()
    assert e.value.value == "default.hive_parquet"


def test_repair_registers_again_what_the_warehouse_holds(spark, metastore):
    spark.sql("CREATE DATABASE paimon.fixme")
    spark.sql("CREATE TABLE paimon.fixme.t (id INT, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('metastore.partitioned-table' = 'true')")
    spark.sql("INSERT INTO paimon.fixme.t VALUES (1, 'd1'), (2, 'd2')")
    jvm = spark.sparkContext._jvm
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", metastore.uri)
    client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
    try:
        client.dropTable("fixme", "t", False, True)  # the record only: the files stay
        # A filesystem catalog over the same warehouse writes a database and a table the metastore never heard of.
        spark.conf.set("spark.sql.catalog.fs", "paimonspark.spark.PaimonCatalog")
        spark.conf.set("spark.sql.catalog.fs.warehouse", str(metastore.warehouse))
        spark.sql("CREATE DATABASE fs.lost")
        spark.sql("CREATE TABLE fs.lost.u (a INT)")
        spark.sql("INSERT INTO fs.lost.u VALUES (7)")
        assert [r.tableName for r in spark.sql("SHOW TABLES IN paimon.fixme").collect()] == []
        assert spark.sql("CALL paimon.sys.repair(database_or_table => 'fixme')").collect()[0][0] is True
        assert [r.tableName for r in spark.sql("SHOW TABLES IN paimon.fixme").collect()] == ["t"]
        assert rows(spark.table("paimon.fixme.t")) == [(1, "d1"), (2, "d2")]
        assert len(client.getPartitionsByNames("fixme", "t", ["dt=d1", "dt=d2"])) == 2
        spark.sql("CALL paimon.sys.repair()")  # the whole catalog: the database too
        assert rows(spark.table("paimon.lost.u")) == [(7,)]
        # A record gone stale: the table changed where the metastore did not see it.
        spark.sql("ALTER TABLE fs.lost.u ADD COLUMN b STRING")
        spark.sql("CALL paimon.sys.repair(database_or_table => 'lost.u')")
        assert [c.getName() for c in client.getTable("lost", "u").getSd().getCols()] == ["a", "b"]
    finally:
        client.close()


@pytest.fixture(scope="module")
def writers(metastore: Metastore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WriterPool]:
    """A writer process whose catalog is the metastore's, with locks on: with the module's own session, two."""
    env = {**os.environ, "PAIMON_TEST_METASTORE": json.dumps({"uri": metastore.uri, "options": OPTIONS})}
    pool = WriterPool(str(metastore.warehouse), [1], tmp_path_factory.mktemp("writers"), env=env)
    yield pool
    pool.close()


def test_writers_in_two_processes_commit_under_the_lock_and_lose_nothing(spark, writers):
    spark.sql("CREATE TABLE paimon.default.race (writer INT, seq BIGINT)")
    job = writers.start("paimon.default.race", commits=6, rows=10)
    for i in range(6):  # this process, meanwhile
        spark.range(10).selectExpr("0 AS writer", f"{i} * 1000000 + id AS seq").writeTo("paimon.default.race").append()
    assert {w: a["committed"] for w, a in writers.finish(job).items()} == {1: 6}
    assert rows(spark.sql("SELECT writer, count(*) FROM paimon.default.race GROUP BY writer")) == [(0, 60), (1, 60)]


def test_a_writer_killed_holding_the_lock_holds_others_up_only_until_the_metastore_times_it_out(spark, writers):
    spark.sql("CREATE TABLE paimon.default.held (a INT)")
    # The writer process takes the table's lock and is killed holding it.
    writers.finish(writers.start("", 0, hold_lock=["default", "held"]))
    writers.kill(1)
    started = time.monotonic()
    spark.sql("INSERT INTO paimon.default.held VALUES (1)")
    waited = time.monotonic() - started
    assert rows(spark.table("paimon.default.held")) == [(1,)]
    assert waited >= LOCK_TIMEOUT_S / 2, f"the commit did not wait for the dead holder's lock ({waited:.1f} s)"
