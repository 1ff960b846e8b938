"""A job for a Spark cluster, in SQL only: append, upsert, compaction, tags and time travel.

    submit.sh cluster_job.py [--executors N]

Run by docker/bin/submit.sh (which registers the `paimon` catalog over the shared warehouse). It
waits until N executors (default 2) have registered, so that the writes really spread over several
JVMs, and prints one line `RESULT <json>` with what it read back, for the caller to check.
"""

from __future__ import annotations

import argparse
import json
import time

from pyspark.sql import SparkSession


def wait_for_executors(spark: SparkSession, count: int, timeout: float = 120.0) -> int:
    deadline = time.time() + timeout
    while True:
        # The driver's block manager is counted too.
        registered = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
        if registered >= count or time.time() > deadline:
            return registered
        time.sleep(0.5)


def scalar(spark: SparkSession, query: str):
    return spark.sql(query).collect()[0][0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--executors", type=int, default=2)
    args = parser.parse_args()
    spark = SparkSession.builder.appName("paimon-spark-cluster-job").getOrCreate()
    executors = wait_for_executors(spark, args.executors)
    sql = spark.sql
    sql("CREATE DATABASE IF NOT EXISTS paimon.cluster")

    # An append table, partitioned, written by eight tasks.
    sql("CREATE TABLE paimon.cluster.events (id BIGINT, p INT, v STRING) PARTITIONED BY (p)")
    sql("INSERT INTO paimon.cluster.events "
        "SELECT id, CAST(id % 4 AS INT), concat('e', id) FROM range(0, 20000, 1, 8)")

    # A primary-key table: an insert, an upsert of every other key, a full compaction.
    sql("CREATE TABLE paimon.cluster.users (id BIGINT, name STRING, visits INT) "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4')")
    sql("INSERT INTO paimon.cluster.users SELECT id, concat('u', id), 1 FROM range(0, 5000, 1, 4)")
    sql("CALL paimon.sys.create_tag(table => 'cluster.users', tag => 'first')")
    sql("INSERT INTO paimon.cluster.users SELECT id, concat('v', id), 2 FROM range(0, 5000, 2, 4)")
    compacted = bool(scalar(spark, "CALL paimon.sys.compact(table => 'cluster.users')"))

    result = {
        "executors": executors,
        "events_count": scalar(spark, "SELECT count(*) FROM paimon.cluster.events"),
        "events_p3": scalar(spark, "SELECT count(*) FROM paimon.cluster.events WHERE p = 3"),
        "users_visits": scalar(spark, "SELECT sum(visits) FROM paimon.cluster.users"),
        "users_count": scalar(spark, "SELECT count(*) FROM paimon.cluster.users"),
        "compacted": compacted,
        "latest_kind": scalar(spark, "SELECT commit_kind FROM paimon.cluster.`users$snapshots` "
                                     "ORDER BY snapshot_id DESC LIMIT 1"),
        "first_visits": scalar(spark, "SELECT sum(visits) FROM paimon.cluster.users VERSION AS OF 'first'"),
        "snapshot_1_visits": scalar(spark, "SELECT sum(visits) FROM paimon.cluster.users VERSION AS OF 1"),
    }
    print("RESULT " + json.dumps(result), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
