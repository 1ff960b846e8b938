"""Paimon's JDBC catalog from PySpark on an SQLite file (the drivers configure_spark_with_paimon loads for
metastore=jdbc): tables shared with pypaimon's JDBC catalog both ways, and writer processes whose commits the
catalog database's lock serializes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from concurrent_writer import race_through_catalog
from conftest import new_session, oracle_append, oracle_rows, rows


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("jdbc")
    return {"metastore": "jdbc", "uri": f"jdbc:sqlite:{root / 'catalog.db'}", "warehouse": str(root / "warehouse"),
            "lock.enabled": "true"}


@pytest.fixture(scope="module")
def spark(catalog: dict[str, str]) -> Iterator:
    session = new_session(Path(catalog["warehouse"]), catalog_options=catalog)
    yield session
    session.stop()


def test_pypaimon_and_we_share_one_catalog_database(spark, catalog):
    spark.sql("CREATE DATABASE paimon.shared")
    spark.sql("CREATE TABLE paimon.shared.ours (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql("INSERT INTO paimon.shared.ours VALUES (1, 'a'), (2, 'b')")
    oracle = CatalogFactory.create({k: v for k, v in catalog.items() if k != "lock.enabled"})
    assert "shared" in oracle.list_databases() and oracle.list_tables("shared") == ["ours"]
    assert oracle_rows(oracle, "ours", db="shared") == [(1, "a"), (2, "b")]
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    oracle.create_table("shared.theirs", Schema.from_pyarrow_schema(schema), False)
    oracle_append(oracle, "shared.theirs", pa.table({"id": [1], "name": ["x"]}, schema=schema))
    assert rows(spark.sql("SELECT * FROM paimon.shared.theirs")) == [(1, "x")]
    spark.sql("INSERT INTO paimon.shared.theirs VALUES (2, 'y')")
    assert oracle_rows(oracle, "theirs", db="shared") == [(1, "x"), (2, "y")]
    # Paimon's rows: one per table under the catalog key, the database marked as created.
    database = sqlite3.connect(catalog["uri"].removeprefix("jdbc:sqlite:"))
    try:
        assert sorted(database.execute("SELECT catalog_key, database_name, table_name FROM paimon_tables").fetchall()) == \
            [("jdbc", "shared", "ours"), ("jdbc", "shared", "theirs")]
        assert ("exists", "true") in database.execute(
            "SELECT property_key, property_value FROM paimon_database_properties WHERE database_name = 'shared'").fetchall()
    finally:
        database.close()


def test_writer_processes_commit_under_the_catalog_databases_lock_and_none_is_lost(spark, catalog, tmp_path):
    spark.sql("CREATE TABLE paimon.default.locked (writer INT, seq BIGINT) TBLPROPERTIES ('write-only' = 'true')")
    race_through_catalog(spark, "paimon.default.locked", catalog["warehouse"], catalog, tmp_path / "writers")
    database = sqlite3.connect(catalog["uri"].removeprefix("jdbc:sqlite:"))
    try:  # every lock taken was given back
        assert database.execute("SELECT count(*) FROM paimon_distributed_locks").fetchone() == (0,)
    finally:
        database.close()
