"""Paimon's REST catalog from PySpark, on Apache Paimon's own REST server (tests/support/rest_catalog.py): tables
shared with pypaimon's REST client both ways, a wrong token as a typed error, writer processes committing through
one server, and a server that loses a commit's request or its answer."""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from concurrent_writer import race_through_catalog
from conftest import new_session, oracle_append, oracle_rows, rows
from paimon_spark import CatalogAccessError, MetastoreError, PaimonTable
from rest_catalog import LosingProxy, RestCatalogServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestCatalogServer]:
    server = RestCatalogServer(tmp_path_factory.mktemp("rest"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def spark(server: RestCatalogServer) -> Iterator:
    session = new_session(server.warehouse, catalog_options=server.options())
    yield session
    session.stop()


@pytest.fixture(scope="module")
def oracle(server: RestCatalogServer, spark):
    return CatalogFactory.create(server.options())


def test_pypaimon_and_we_list_read_and_write_each_others_tables(spark, oracle):
    spark.sql("CREATE DATABASE paimon.shared")
    spark.sql("CREATE TABLE paimon.shared.ours (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql("INSERT INTO paimon.shared.ours VALUES (1, 'a'), (2, 'b')")
    spark.sql("UPDATE paimon.shared.ours SET v = 'b2' WHERE id = 2")
    assert "shared" in oracle.list_databases() and oracle.list_tables("shared") == ["ours"]
    assert oracle_rows(oracle, "ours", db="shared") == [(1, "a"), (2, "b2")]
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    oracle.create_table("shared.theirs", Schema.from_pyarrow_schema(schema), False)
    oracle_append(oracle, "shared.theirs", pa.table({"id": [1, 2], "name": ["x", "y"]}, schema=schema))
    assert rows(spark.sql("SELECT * FROM paimon.shared.theirs")) == [(1, "x"), (2, "y")]
    spark.sql("INSERT INTO paimon.shared.theirs VALUES (3, 'z')")
    assert oracle_rows(oracle, "theirs", db="shared") == [(1, "x"), (2, "y"), (3, "z")]
    assert sorted(r[1] for r in spark.sql("SHOW TABLES IN paimon.shared").collect()) == ["ours", "theirs"]
    # The Python API over the same catalog, by name.
    theirs = PaimonTable.for_name(spark, "paimon.shared.theirs")
    theirs.append(spark.createDataFrame([(4, "w")], "id BIGINT, name STRING"))
    assert theirs.latest_snapshot_id() == 3
    assert rows(spark.sql("SELECT * FROM paimon.shared.theirs VERSION AS OF 2")) == [(1, "x"), (2, "y"), (3, "z")]
    assert oracle_rows(oracle, "theirs", db="shared")[-1] == (4, "w")


def test_a_wrong_token_is_a_catalog_access_error_naming_the_catalog(spark, server):
    for key, value in server.options(token="not-the-token").items():
        spark.conf.set(f"spark.sql.catalog.wrong.{key}", value)
    spark.conf.set("spark.sql.catalog.wrong", "paimonspark.spark.PaimonCatalog")
    with pytest.raises(CatalogAccessError) as refused:
        spark.sql("SHOW DATABASES IN wrong")
    assert refused.value.value == "wrong" and "401" in str(refused.value)
    assert "not-the-token" not in str(refused.value)
    # The catalog asked for its config, was refused, and asked nothing more.
    assert server.requests()[-1] == f"GET /v1/config?warehouse={server.warehouse} 401"


def test_two_writer_processes_commit_through_one_server_and_none_is_lost(spark, server, tmp_path):
    spark.sql("CREATE TABLE paimon.default.raced (writer INT, seq BIGINT) TBLPROPERTIES ('commit.max-retries' = '100', "
              "'write-only' = 'true')")
    race_through_catalog(spark, "paimon.default.raced", server.warehouse, server.options(), tmp_path / "writers")
    commits = [r for r in server.requests() if "/tables/raced/commit" in r]
    assert len(commits) >= 6 and all(r.endswith(" 200") for r in commits), commits


def test_a_commit_lost_before_or_after_the_server_leaves_the_table_whole(spark, server):
    proxy = LosingProxy(server.url)
    try:
        for key, value in server.options(url=proxy.url).items():
            spark.conf.set(f"spark.sql.catalog.flaky.{key}", value)
        spark.conf.set("spark.sql.catalog.flaky", "paimonspark.spark.PaimonCatalog")
        spark.sql("CREATE TABLE flaky.default.lossy (id INT)")
        spark.sql("INSERT INTO flaky.default.lossy VALUES (1)")
        proxy.lose("before")
        with pytest.raises(MetastoreError) as lost:
            spark.sql("INSERT INTO flaky.default.lossy VALUES (2)")
        assert "may or may not have landed" in str(lost.value)
        assert rows(spark.sql("SELECT * FROM flaky.default.lossy")) == [(1,)]
        proxy.lose("after")
        with pytest.raises(MetastoreError):
            spark.sql("INSERT INTO flaky.default.lossy VALUES (3)")
        # The server took that one: the next read shows it, and the next commit goes on from it.
        assert rows(spark.sql("SELECT * FROM flaky.default.lossy")) == [(1,), (3,)]
        spark.sql("INSERT INTO flaky.default.lossy VALUES (4)")
        assert rows(spark.sql("SELECT * FROM paimon.default.lossy")) == [(1,), (3,), (4,)]
        assert [r[0] for r in spark.sql("SELECT snapshot_id FROM paimon.default.`lossy$snapshots`").collect()] == [1, 2, 3]
    finally:
        proxy.stop()
