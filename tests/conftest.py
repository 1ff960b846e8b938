"""Shared fixtures: one real SparkSession per test module, each over its own warehouse."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from pyspark.sql import SparkSession

from paimon_spark import configure_spark_with_paimon

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

# Helpers and the scripts other processes run (workers, session fixtures) live in tests/support.
SUPPORT = Path(__file__).resolve().parent / "support"
sys.path.insert(0, str(SUPPORT))

import jvm_options  # noqa: E402
import store_emulators  # noqa: E402
from deploy_util import REPO  # noqa: E402
from paimon_spark import jar_sets  # noqa: E402


# `make test` runs the modules on two pytest-xdist workers, a module at a time on each (a module's session is
# module-scoped); the modules under python_api/ share the Connect server (a session-scoped fixture), so they
# go to one worker together. A worker takes its next module when it is almost done with its last, so the
# longest go first, with their seconds measured on this 2-core machine: the workers end at about the same time.
LONGEST_FIRST = {
    "interop/test_flink.py": 160, "object_stores/test_s3_tables.py": 150, "object_stores/test_gcs_azure_concurrency.py": 135,
    "changelog_and_streaming/test_streaming.py": 121, "catalog_and_writes/test_hive_metastore.py": 120,
    "object_stores/test_s3_concurrency.py": 111, "python_api": 110,
    "changelog_and_streaming/test_changelog_model.py": 89, "row_level_and_schema/test_row_level.py": 87,
    "history/test_history_kill.py": 78, "deployment/test_standalone_cluster.py": 70, "deployment/test_packages.py": 63,
    "primary_keys/test_merge_on_read.py": 54, "deployment/test_package.py": 47, "deployment/test_jar_sets.py": 41,
}


def _group(nodeid: str) -> str:
    """The module of a test id (relative to tests/), or python_api for every module that may use Connect."""
    module = nodeid.split("::")[0].removeprefix("tests/")
    return "python_api" if module.startswith("python_api/") else module


def pytest_configure(config: pytest.Config) -> None:
    """In the controller, before any worker starts (the workers inherit its environment): the object
    stores' connectors and the JDBC drivers are resolved into the checkout's own folder, once, so that no session resolves them, and no two
    processes download into one cache at once."""
    os.environ.setdefault(jar_sets.JARS_DIR_VARIABLE, str(REPO / ".cache" / "jars"))
    if not hasattr(config, "workerinput"):
        for jars in (jar_sets.S3, jar_sets.JDBC, jar_sets.GCS, jar_sets.AZURE):
            jars.fetch()
    jvm_options.use_in_every_jvm()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: -LONGEST_FIRST.get(_group(item.nodeid), 0))


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid)

    config.option.loadscopereorder = False  # keep the collected order: longest first
    return ModuleScheduling(config, log)


def _forget_earlier_catalogs() -> None:
    """PySpark leaves a stopped session's settings in its JVM's system properties, where the next session of
    the same process (the next module on a pytest worker) would take them: a catalog's metastore among them."""
    from pyspark import SparkContext

    if SparkContext._jvm is not None:
        system = SparkContext._jvm.System
        for key in list(system.getProperties().stringPropertyNames()):
            if key.startswith(("spark.sql.catalog.", "spark.hadoop.hive.")) or key == "spark.sql.catalogImplementation":
                system.clearProperty(key)


def new_session(warehouse: Path | str, master: str = "local[2]", metastore_uri: str | None = None,
                catalog_options: dict[str, str] | None = None, **conf: str) -> SparkSession:
    """A session whose `paimon` catalog is over `warehouse`: a local path, or a location on an object store
    (`s3a://` on the moto server, `gs://` on fake-gcs-server, `abfs://` on Azurite) whose settings `conf` (or,
    in a worker process, its environment) gives; or with `catalog_options` of a REST catalog (metastore=rest),
    the catalog's name on its server. The suite's own driver always has S3A, the GCS connector and ABFS on its
    classpath: it is started once, by whichever module comes first. With `metastore_uri` the catalogs are Hive
    catalogs over that metastore, with `catalog_options`."""
    _forget_earlier_catalogs()
    scheme = warehouse.split("://", 1)[0] if isinstance(warehouse, str) and "://" in warehouse else ""
    local = warehouse.parent if isinstance(warehouse, Path) else Path(tempfile.mkdtemp(prefix="spark-"))
    builder = (
        SparkSession.builder.master(master)
        .appName("paimon-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.warehouse.dir", str(local / "spark-warehouse"))
    )
    in_suite = jvm_options.in_suite_process()
    if in_suite:
        # The suite's driver JVM serves every module of its worker: the JDBC catalog's drivers are on its
        # classpath from the start, as the object stores' connectors are, whichever module starts it.
        builder = builder.config("spark.jars", ",".join(jar_sets.JDBC.fetch()))
    worker_store = store_emulators.conf_from_env() if scheme else {}
    settings = {**jvm_options.executor_conf(), **worker_store, **conf}
    for key, value in settings.items():
        builder = builder.config(key, value)
    with jvm_options.own_driver():
        spark = configure_spark_with_paimon(
            builder, warehouse=str(warehouse), s3=in_suite or scheme == "s3a", gcs=in_suite or scheme == "gs",
            azure=in_suite or scheme in ("abfs", "abfss"), metastore_uri=metastore_uri,
            catalog_options=catalog_options).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("wh") / "warehouse"


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator[SparkSession]:
    session = new_session(warehouse)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator["sessions.ConnectServer"]:
    """The Spark Connect server of the run (of a pytest worker): defined here, once, since a session-scoped
    fixture imported into several modules would be defined, and started, once per module."""
    import sessions  # it imports this module's new_session

    server = sessions.ConnectServer(tmp_path_factory.mktemp("connect"))
    yield server
    server.stop()


def table_dir(warehouse: Path, name: str, db: str = "default") -> Path:
    return warehouse / f"{db}.db" / name


def commit_kinds(warehouse: Path, name: str) -> list[str]:
    """The commitKind of every snapshot of a table, oldest first."""
    snapshots = sorted((table_dir(warehouse, name) / "snapshot").glob("snapshot-*"),
                       key=lambda p: int(p.name.split("-")[1]))
    return [json.loads(p.read_text())["commitKind"] for p in snapshots]


def _sort_key(row: tuple) -> list:
    return [(v is None, v if isinstance(v, (int, float)) else str(v)) for v in row]


def rows(df) -> list[tuple]:
    """A DataFrame's rows as plain tuples in a stable order (numbers sorted as numbers)."""
    return sorted((tuple(r) for r in df.collect()), key=_sort_key)


@pytest.fixture(scope="module")
def oracle(warehouse: Path):
    """pypaimon's catalog over the module's warehouse: the independent reader every result is checked with."""
    from pypaimon import CatalogFactory

    return CatalogFactory.create({"warehouse": str(warehouse)})


def oracle_append(oracle, name: str, frame) -> None:
    """Appends an Arrow table to the table `name` ("db.t") as pypaimon writes: one batch write, one commit."""
    builder = oracle.get_table(name).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(frame)
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()


def oracle_rows(oracle, name: str, columns: list[str] | None = None, db: str = "default") -> list[tuple]:
    """A table's rows as pypaimon reads them (all columns, or `columns`), sorted."""
    table = oracle.get_table(f"{db}.{name}")
    builder = table.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    return sorted((tuple(r.values()) if columns is None else tuple(r[c] for c in columns)) for r in data)
