"""Writer processes racing for the same snapshot ids on Google Cloud Storage (fake-gcs-server) and Azure Blob
storage (Azurite), with no lock service: every commit lands exactly once, none is lost, and a writer killed
mid-commit leaves the table readable. Snapshots are published by each connector's exclusive create. pypaimon
reads what they wrote on GCS (it has no Azure file I/O)."""

from __future__ import annotations

from typing import Dict, Iterator

import pytest

from concurrent_writer import race_then_kill
from store_emulators import Azurite, FakeGcs, StoreEmulator

# The test session's catalog over each store.
CATALOGS = {"gcs": "paimon", "azure": "azure"}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, StoreEmulator]]:
    logs = tmp_path_factory.mktemp("emulators")
    started: Dict[str, StoreEmulator] = {}
    try:
        started["gcs"] = FakeGcs(logs / "fake-gcs.log")
        started["azure"] = Azurite(logs / "azurite.log")
        yield started
    finally:
        for store in started.values():
            store.stop()


@pytest.fixture(scope="module")
def spark(stores: Dict[str, StoreEmulator]):
    from conftest import new_session

    azure = stores["azure"]
    session = new_session(stores["gcs"].uri("warehouse"), **stores["gcs"].spark_conf(), **azure.spark_conf(), **{
        "spark.sql.catalog.azure": "paimonspark.spark.PaimonCatalog",
        "spark.sql.catalog.azure.warehouse": azure.uri("warehouse"),
        # The container, made by this session before any writer process starts.
        "spark.hadoop.fs.azure.createRemoteFileSystemDuringInitialization": "true"})
    yield session
    session.stop()


@pytest.mark.parametrize("store", ["gcs", "azure"])
def test_three_writer_processes_commit_three_times_each_then_one_is_killed_mid_commit(store, stores, spark, tmp_path,
                                                                                      monkeypatch):
    race_then_kill(spark, CATALOGS[store], stores[store].uri("warehouse"), stores[store].worker_env(), tmp_path / "writers")
    if store == "gcs":
        # pypaimon reads GCS through pyarrow, which finds an emulator by this variable (and then needs a token).
        from pypaimon import CatalogFactory

        from conftest import oracle_rows

        monkeypatch.setenv("CLOUD_STORAGE_EMULATOR_ENDPOINT", f"http://127.0.0.1:{stores[store].port}")
        oracle = CatalogFactory.create({"warehouse": stores[store].uri("warehouse"), "gcs.access-token": "test"})
        for table in ("conc", "killed"):
            assert oracle_rows(oracle, table) == sorted(tuple(r) for r in spark.table(f"paimon.default.{table}").collect())
