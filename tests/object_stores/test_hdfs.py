"""Writer processes racing for the same snapshot ids on a real HDFS (Hadoop 3.5.0's own name node and data
node), reached by an HA nameservice name that `hdfs-site.xml` in HADOOP_CONF_DIR defines, as on a cluster:
every commit lands exactly once, and a writer killed mid-commit leaves the table readable."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from concurrent_writer import race_then_kill
from hdfs_cluster import NAMESERVICE, HdfsCluster


@pytest.fixture(scope="module")
def hdfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HdfsCluster]:
    cluster = HdfsCluster(tmp_path_factory.mktemp("hdfs"))
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def spark(hdfs: HdfsCluster):
    from conftest import new_session

    # This process's driver JVM is already running: the nameservice as settings, not HADOOP_CONF_DIR.
    session = new_session(f"hdfs://{NAMESERVICE}/warehouse", **{f"spark.hadoop.{k}": v for k, v in hdfs.nameservice().items()})
    yield session
    session.stop()


def test_three_writer_processes_on_hdfs_commit_three_times_each_then_one_is_killed_mid_commit(hdfs, spark, tmp_path):
    # The writers find the nameservice as a cluster's jobs do: in HADOOP_CONF_DIR.
    env = {**os.environ, "HADOOP_CONF_DIR": str(hdfs.conf_dir())}
    race_then_kill(spark, "paimon", f"hdfs://{NAMESERVICE}/warehouse", env, tmp_path / "writers")
    # pypaimon (its native HDFS client, hdfs-native) reads both tables as we do, at the name node's address.
    from pypaimon import CatalogFactory

    from conftest import oracle_rows

    oracle = CatalogFactory.create({"warehouse": f"{hdfs.uri}/warehouse"})
    for table in ("conc", "killed"):
        assert oracle_rows(oracle, table) == sorted(tuple(r) for r in spark.table(f"paimon.default.{table}").collect())
