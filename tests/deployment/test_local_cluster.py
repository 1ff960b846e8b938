"""The same writes and reads with executors in separate JVMs (local-cluster), as on a real cluster."""

import time
from pathlib import Path
from typing import Iterator

import pytest
from pypaimon import CatalogFactory
from pyspark.sql import SparkSession

from conftest import new_session, rows


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator[SparkSession]:
    session = new_session(warehouse, master="local-cluster[2,1,1024]", **{"spark.executor.memory": "512m"})
    yield session
    session.stop()


def test_executors_write_and_read_in_parallel(spark, warehouse):
    deadline = time.time() + 90
    # The driver and two executor JVMs, once both executors have registered.
    while spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() < 3:
        assert time.time() < deadline, "the two executors did not start"
        time.sleep(0.5)
    spark.sql("CREATE TABLE paimon.default.cluster (id BIGINT, p INT) PARTITIONED BY (p)")
    spark.range(0, 50000, 1, 8).selectExpr("id", "CAST(id % 5 AS INT) p").writeTo("paimon.default.cluster").append()
    assert spark.table("paimon.default.cluster").count() == 50000
    assert spark.sql("SELECT count(*) FROM paimon.default.cluster WHERE p = 3").collect()[0][0] == 10000
    assert spark.sql("SELECT sum(id) FROM paimon.default.cluster").collect()[0][0] == sum(range(50000))
    table = CatalogFactory.create({"warehouse": str(warehouse)}).get_table("default.cluster")
    builder = table.new_read_builder()
    assert len(builder.new_read().to_pandas(builder.new_scan().plan().splits())) == 50000


def test_overwrite_and_path_writes_on_the_cluster(spark, tmp_path):
    path = str(tmp_path / "cluster_path")
    spark.range(0, 1000, 1, 4).selectExpr("id", "id % 2 AS p").write.format("paimon").partitionBy("p").save(path)
    spark.range(0, 10, 1, 2).selectExpr("id", "1L AS p").write.format("paimon").mode("overwrite").save(path)
    assert rows(spark.read.format("paimon").load(path)) == [(i, 1) for i in range(10)]
