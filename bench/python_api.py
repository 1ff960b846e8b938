"""The Python layer's cost: PaimonTable.upsert(df) and to_df() against the same work written as SQL, in
one run on the same data, and the latency of metadata calls (history(), latest_snapshot_id()) on a warm
session. The API carries each call as one SQL statement, so anything beyond noise is its own overhead.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from pyspark.sql import SparkSession

from harness import Check, Comparison, columns_sql, timed_with_cpu
from upsert_ingest import BUCKETS, with_values

from paimon_spark import PaimonTable

NAME = "python_api"
TITLE = "Python API vs SQL: upsert, full read, metadata call latency"
RATIO_GOAL = 1 / 1.05  # the API within 1.05x of SQL's time
LATENCY_GOAL_MS = 50.0
METADATA_CALLS = 30
HISTORY_COMMITS = 200  # the metadata calls run over a table with this much history
MIN_REPEATS = 5  # a 5% goal needs a median steadier than three runs give


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    upsert_rows = rows // 2
    repeats = max(repeats, MIN_REPEATS)
    source = with_values(spark.range(0, upsert_rows, 1, numPartitions=spark.sparkContext.defaultParallelism * 2),
                         1).cache()
    source.count()
    source.createOrReplaceTempView("api_source")
    schema_sql = columns_sql(source)

    def fresh(table: str) -> PaimonTable:
        spark.sql(f"DROP TABLE IF EXISTS paimon.default.{table}")
        spark.sql(f"CREATE TABLE paimon.default.{table} ({schema_sql}) "
                  f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '{BUCKETS}')")
        return PaimonTable.for_name(spark, f"paimon.default.{table}")

    ways = {
        "SQL": lambda t: spark.sql(f"INSERT INTO {t.name} SELECT * FROM api_source").collect(),
        "PaimonTable": lambda t: t.upsert(source),
    }
    reads = {
        "SQL": lambda t: spark.sql(f"SELECT sum(xxhash64(*) % 1000003) FROM {t.name}").collect(),
        "PaimonTable": lambda t: t.to_df().selectExpr("sum(xxhash64(*) % 1000003)").collect(),
    }
    write_s, read_s = {w: [] for w in ways}, {w: [] for w in ways}
    cpu: dict[str, dict[str, list[float]]] = {"upsert": {w: [] for w in ways}, "read": {w: [] for w in ways}}
    sums = set()
    for i in range(-1, repeats):  # run -1 is an untimed warm-up
        for way in (list(ways) if i % 2 == 0 else list(ways)[::-1]):
            t = fresh(f"api_{way.lower()}")
            wall, cpu_s = timed_with_cpu(spark, lambda: ways[way](t))
            read_wall, read_cpu = timed_with_cpu(spark, lambda: sums.add(reads[way](t)[0][0]))
            if i >= 0:
                write_s[way].append(wall)
                read_s[way].append(read_wall)
                cpu["upsert"][way].append(round(cpu_s, 2))
                cpu["read"][way].append(round(read_cpu, 2))
                print(f"  run {i + 1}: {way:<11} upsert {wall:6.2f}s ({cpu_s:5.1f} CPU-s)  "
                      f"read {read_wall:6.2f}s ({read_cpu:5.1f} CPU-s)", flush=True)
    if len(sums) != 1:
        raise AssertionError(f"the tables written by SQL and by PaimonTable differ: hashes {sums}")

    t = history_table(spark)
    latency = {"history()": lambda: t.history().collect(), "latest_snapshot_id()": t.latest_snapshot_id,
               "SQL $snapshots": lambda: spark.sql(f"SELECT * FROM {t._ident('$snapshots')}").collect()}
    millis = {name: call_millis(call) for name, call in latency.items()}
    spark.sql(f"DROP TABLE {t.name}")
    spark.sql("DROP TABLE IF EXISTS paimon.default.api_sql")
    spark.sql("DROP TABLE IF EXISTS paimon.default.api_paimontable")
    source.unpersist()

    described = (f"{upsert_rows:,} rows of 10 columns into a fresh {BUCKETS}-bucket primary-key table per run; "
                 "the runs alternate which way goes first. Goal from the issue: the API within 1.05x of SQL.")
    results = [
        Comparison("upsert", upsert_rows, "SQL", "PaimonTable", write_s["SQL"], write_s["PaimonTable"],
                   goal=RATIO_GOAL, description=f"`PaimonTable.upsert(df)` against `INSERT INTO t SELECT * FROM "
                                                f"view` of the same cached DataFrame: {described}"),
        Comparison("to_df read", upsert_rows, "SQL", "PaimonTable", read_s["SQL"], read_s["PaimonTable"],
                   goal=RATIO_GOAL, description="`t.to_df().selectExpr('sum(xxhash64(*) % 1000003)')` against "
                                                "`SELECT sum(xxhash64(*) % 1000003) FROM t`: a full merge-on-read of the "
                                                "table each way just wrote."),
    ]
    checks = [Check(f"{name} latency", f"{statistics.median(ms):.1f} ms median, {max(ms):.1f} ms max of "
                                       f"{len(ms)} calls", f"< {LATENCY_GOAL_MS:.0f} ms median",
                    statistics.median(ms) < LATENCY_GOAL_MS,
                    "Wall time of one call on a warm session over a table of "
                    f"{HISTORY_COMMITS} snapshots, after 5 untimed calls; history() returns them all, "
                    "latest_snapshot_id() reads one snapshot file.")
              for name, ms in millis.items() if not name.startswith("SQL")]
    notes = {"upsert_rows": upsert_rows, "buckets": BUCKETS, "repeats": repeats, "cpu_seconds": cpu,
             "metadata_call_ms_median": {n: round(statistics.median(ms), 2) for n, ms in millis.items()},
             "checksum": "sum of xxhash64 over all columns agrees between the table SQL wrote and the one "
                         "PaimonTable wrote, each read its own way",
             "checks": checks}
    return results, notes


def history_table(spark: SparkSession) -> PaimonTable:
    """A small table of HISTORY_COMMITS snapshots (all retained), one row per commit."""
    spark.sql("DROP TABLE IF EXISTS paimon.default.api_history")
    t = PaimonTable.create(spark).name("paimon.default.api_history").column("id", "INT") \
        .option("snapshot.num-retained.min", HISTORY_COMMITS).option("write-only", "true").execute()
    for i in range(HISTORY_COMMITS):
        spark.sql(f"INSERT INTO {t.name} VALUES ({i})")
    assert t.latest_snapshot_id() == HISTORY_COMMITS
    return t


def call_millis(call) -> list[float]:
    """Milliseconds of each of METADATA_CALLS calls, after 5 untimed ones."""
    for _ in range(5):
        call()
    out = []
    for _ in range(METADATA_CALLS):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out
