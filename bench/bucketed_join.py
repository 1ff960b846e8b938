"""Bucketed joins: two primary-key tables bucketed alike on the join key, joined with the bucket layout
their scans report to Spark (a storage-partitioned join: no shuffle) and with Spark told to ignore it
(`spark.sql.sources.v2.bucketing.enabled` = false: both sides shuffled), on the same session and data;
and a GROUP BY on the bucket key, both ways.

Each table is written once and fully compacted, the state a table that is joined is usually in. Every
timing is paired with the CPU seconds the Spark JVM spent; the write's time is reported beside.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from harness import Check, Comparison, columns_sql, timed_with_cpu
from scan_packing import median

NAME = "bucketed_join"
TITLE = "Joins of two primary-key tables bucketed alike: storage-partitioned against shuffled"
BUCKETS = 8
GOAL = 1.3  # the issue's: the join at least 1.3x faster without its shuffle
LAYOUT_OFF = {"spark.sql.sources.v2.bucketing.enabled": "false"}
QUERIES = {
    "join": "SELECT o.id, o.amount, o.note, c.name, c.city FROM paimon.default.bj_orders o "
            "JOIN paimon.default.bj_customers c ON o.id = c.id",
    "group by bucket key": "SELECT id, count(*), max(note) FROM paimon.default.bj_orders GROUP BY id",
}


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    notes: dict = {"buckets": BUCKETS}
    for table, source in (("bj_orders", orders(spark, rows)), ("bj_customers", customers(spark, rows))):
        columns = columns_sql(source)
        spark.sql(f"CREATE TABLE paimon.default.{table} ({columns}) "
                  f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '{BUCKETS}')")
        write = timed_with_cpu(spark, lambda: source.writeTo(f"paimon.default.{table}").append())
        compact = timed_with_cpu(spark, lambda: spark.sql(f"CALL paimon.sys.compact(table => 'default.{table}')").collect())
        notes[f"{table}: write, then full compaction: wall s / CPU s"] = \
            f"{write[0]:.1f} / {write[1]:.1f}, {compact[0]:.1f} / {compact[1]:.1f}"
    # 10 M rows are far above the broadcast threshold; set anyway, so a quick run joins the same way.
    checks, measured = with_confs(spark, {"spark.sql.autoBroadcastJoinThreshold": "-1"}, lambda: (
        [plan_check(spark, query, sql) for query, sql in QUERIES.items()], measure(spark, repeats)))
    notes["median wall s / CPU s"] = {f"{query}, {system}": f"{median(t, 0):.2f} / {median(t, 1):.2f}"
                                      for (query, system), t in measured.items()}
    notes["checks"] = checks
    results = [
        Comparison(query, rows * (2 if query == "join" else 1), "shuffled", "storage-partitioned",
                   [t[0] for t in measured[(query, "shuffled")]],
                   [t[0] for t in measured[(query, "storage-partitioned")]], goal=GOAL if query == "join" else None,
                   description=(f"{query} over {BUCKETS}-bucket tables of {rows:,} rows each (rows counts both "
                                "sides), written to Spark's noop sink; baseline: the same query with the layout "
                                f"ignored; goal >= {GOAL}x" if query == "join" else
                                f"{query} of a {BUCKETS}-bucket table of {rows:,} rows; reported"))
        for query in QUERIES]
    return results, notes


def orders(spark: SparkSession, rows: int):
    id_ = F.col("id")
    return spark.range(rows).select(id_, (id_ % 10_000 / 100).cast("decimal(10,2)").alias("amount"),
                                    F.sha2(id_.cast("string"), 256).alias("note"))


def customers(spark: SparkSession, rows: int):
    # Keys in another order than the orders': each side's buckets are written from their own data.
    id_ = F.col("id")
    return spark.range(rows).select(((id_ * 7_919) % rows).alias("id"), F.concat(F.lit("name-"), id_).alias("name"),
                                    (id_ % 5_000).cast("string").alias("city"))


def with_confs(spark: SparkSession, confs: dict, action):
    for k, v in confs.items():
        spark.conf.set(k, v)
    try:
        return action()
    finally:
        for k in confs:
            spark.conf.unset(k)


SYSTEMS = {"storage-partitioned": {}, "shuffled": LAYOUT_OFF}


def run_query(spark: SparkSession, sql: str) -> None:
    spark.sql(sql).write.format("noop").mode("overwrite").save()


def measure(spark: SparkSession, repeats: int) -> dict:
    """Wall s and CPU s of every query both ways, in alternating order after a warm-up run of each."""
    measured: dict = {}
    for query in QUERIES.values():
        for confs in SYSTEMS.values():
            with_confs(spark, confs, lambda: run_query(spark, query))
    for i in range(repeats):
        for system in list(SYSTEMS) if i % 2 == 0 else list(reversed(SYSTEMS)):
            for name, query in QUERIES.items():
                measured.setdefault((name, system), []).append(with_confs(
                    spark, SYSTEMS[system], lambda: timed_with_cpu(spark, lambda: run_query(spark, query))))
    return measured


def plan_check(spark: SparkSession, query: str, sql: str) -> Check:
    exchanges = {system: with_confs(spark, confs, lambda: str(
        spark.sql(sql)._jdf.queryExecution().executedPlan().toString()).count("Exchange "))
        for system, confs in SYSTEMS.items()}
    return Check(f"shuffles in the plan of the {query}", ", ".join(f"{k}: {v}" for k, v in exchanges.items()),
                 "storage-partitioned: 0, shuffled: at least 1",
                 exchanges["storage-partitioned"] == 0 and exchanges["shuffled"] >= 1,
                 "Exchanges counted in the physical plan Spark prepares for the query, both ways.")
