"""Scan packing: count and full scan of the same rows in an append table and in primary-key tables
with 1 and 4 buckets, at 100, 2,000 and 5,000 daily partitions of 20 rows each, and of 10 M rows in
4 partitions. Reads pack their pieces into Spark tasks by size (`source.split.target-size`,
`source.split.open-file-cost`), so the task count follows what is read, not the number of buckets.

Every timing is paired with the CPU seconds the Spark JVM spent; task counts are read from Spark's
status tracker for the timed query itself.
"""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from harness import Check, Comparison, timed_with_cpu

NAME = "scan_packing"
TITLE = "Scans of many small buckets: primary-key tables against an append table of the same rows"
LEVELS = (100, 2000, 5000)
QUICK_LEVELS = (100, 500)  # --quick: a smoke run of the same code
ROWS_PER_PARTITION = 20
BIG_PARTITIONS = 4
TABLES = {
    "append": "",
    "pk, 1 bucket": "'primary-key' = 'day,id', 'bucket' = '1'",
    "pk, 4 buckets": "'primary-key' = 'day,id', 'bucket' = '4'",
}
BUCKETS = {"append": 1, "pk, 1 bucket": 1, "pk, 4 buckets": 4}
QUERIES = {"count": "SELECT count(*) FROM {t}", "full scan": "SELECT * FROM {t}"}
# The goal: a 4-bucket primary-key table at 2,000 partitions within 1.5x of the append table's time.
GOAL_LEVEL, GOAL = 2000, 1 / 1.5
_groups = itertools.count()


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    results, notes, checks = [], {}, []
    quick = rows < 10_000_000
    for partitions in QUICK_LEVELS if quick else LEVELS:
        n = partitions * ROWS_PER_PARTITION
        names = {label: f"paimon.default.small_{partitions}_{i}" for i, label in enumerate(TABLES)}
        for label, props in TABLES.items():
            create(spark, names[label], props, n, partitions)
        measured = measure(spark, names, repeats)
        for query in QUERIES:
            for label in ("pk, 1 bucket", "pk, 4 buckets"):
                goal = GOAL if (partitions, label) == (GOAL_LEVEL, "pk, 4 buckets") else None
                results.append(Comparison(
                    f"{query}, {partitions:,} partitions", n, "append", label,
                    [t[0] for t in measured[("append", query)]], [t[0] for t in measured[(label, query)]], goal=goal,
                    description=f"{query} of {n:,} rows in {partitions:,} partitions, {label} against the append "
                                f"table; " + ("goal: at most 1.5x the append table's time" if goal else "reported")))
        notes[f"{partitions:,} partitions: median wall s / CPU s / tasks"] = describe(measured)
        files = {label: spark.sql(f"SELECT count(*) FROM {system(t, 'files')}").first()[0] for label, t in names.items()}
        notes[f"{partitions:,} partitions: data files"] = files
        checks.append(task_check(partitions, measured, files))
    big = 1_000_000 if quick else 10_000_000
    results += big_table(spark, work, big, repeats, notes)
    notes["checks"] = checks
    return results, notes


def create(spark: SparkSession, table: str, props: str, rows: int, partitions: int) -> None:
    spark.sql(f"CREATE TABLE {table} (id BIGINT, day STRING, v STRING, n INT) PARTITIONED BY (day)"
              + (f" TBLPROPERTIES ({props})" if props else ""))
    source(spark, rows, partitions).writeTo(table).append()


def source(spark: SparkSession, rows: int, partitions: int):
    id_ = F.col("id")
    return spark.range(rows).select(
        id_, F.date_format(F.date_add(F.lit("2020-01-01").cast("date"), (id_ % partitions).cast("int")),
                           "yyyy-MM-dd").alias("day"),
        F.sha2(id_.cast("string"), 256).alias("v"), (id_ % 1000).cast("int").alias("n"))


def measure(spark: SparkSession, names: dict[str, str], repeats: int) -> dict:
    """Wall s, CPU s and tasks of every query on every table, in alternating order after a warm-up run."""
    measured: dict = {}
    labels = list(names)
    for label in labels:
        for query in QUERIES.values():
            run_query(spark, query.format(t=names[label]))
    for i in range(repeats):
        for label in labels if i % 2 == 0 else reversed(labels):
            for key, query in QUERIES.items():
                measured.setdefault((label, key), []).append(timed_query(spark, query.format(t=names[label])))
    return measured


def run_query(spark: SparkSession, sql: str) -> None:
    df = spark.sql(sql)
    if sql.startswith("SELECT count"):
        df.collect()
    else:
        df.write.format("noop").mode("overwrite").save()


def timed_query(spark: SparkSession, sql: str) -> tuple[float, float, int]:
    """Wall s and CPU s of the query, and the tasks its jobs ran."""
    sc = spark.sparkContext
    group = f"scan-packing-{next(_groups)}"
    sc.setJobGroup(group, sql)
    try:
        wall, cpu = timed_with_cpu(spark, lambda: run_query(spark, sql))
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    stages = [s for job in tracker.getJobIdsForGroup(group) for s in tracker.getJobInfo(job).stageIds]
    # The scan's stage is the first of the query; a count adds a one-task final aggregation.
    tasks = tracker.getStageInfo(min(stages)).numTasks if stages else 0
    return wall, cpu, tasks


def describe(measured: dict) -> dict:
    return {f"{label}, {query}": f"{median(t, 0):.2f} / {median(t, 1):.2f} / {t[-1][2]}"
            for (label, query), t in measured.items()}


def task_check(partitions: int, measured: dict, files: dict) -> Check:
    """The scan's tasks follow what it reads: a task takes 31 files of a few KB (4 MB open cost each). A
    primary-key scan reports its bucket layout to Spark, so each bucket is packed apart: one part-filled
    task per bucket."""
    tasks = {label: measured[(label, "full scan")][-1][2] for label in TABLES}
    bound = {label: -(-files[label] // 31) + BUCKETS[label] for label in TABLES}
    return Check(f"tasks of a full scan, {partitions:,} partitions", ", ".join(f"{k}: {v}" for k, v in tasks.items()),
                 "at most files / 31 + buckets: " + ", ".join(f"{k}: {v}" for k, v in bound.items()),
                 all(tasks[k] <= bound[k] for k in TABLES),
                 "Before packing a primary-key table read one task per bucket of every partition.")


def big_table(spark: SparkSession, work: Path, rows: int, repeats: int, notes: dict) -> list[Comparison]:
    """10 M rows in 4 partitions: large buckets still fill the cores, and packing costs nothing."""
    parquet = str(work / "parquet")
    source(spark, rows, BIG_PARTITIONS).write.mode("overwrite").partitionBy("day").parquet(parquet)
    create(spark, "paimon.default.big_pk", TABLES["pk, 4 buckets"], rows, BIG_PARTITIONS)
    reads = {
        "parquet": lambda: spark.read.parquet(parquet),
        "pk packed": lambda: spark.table("paimon.default.big_pk"),
        # One piece per task: each bucket's key ranges in tasks of their own, as reads were planned before packing.
        "pk one bucket per task": lambda: spark.read.option("source.split.target-size", "1")
        .table("paimon.default.big_pk"),
    }
    for read in reads.values():
        read().write.format("noop").mode("overwrite").save()
    measured: dict = {}
    for i in range(repeats):
        for label in reads if i % 2 == 0 else reversed(list(reads)):
            measured.setdefault(label, []).append(timed_with_cpu(
                spark, lambda r=reads[label]: r().write.format("noop").mode("overwrite").save()))
    notes[f"{rows:,} rows in {BIG_PARTITIONS} partitions: median wall s / CPU s"] = {
        label: f"{median(t, 0):.2f} / {median(t, 1):.2f}" for label, t in measured.items()}
    return [
        Comparison(f"full scan, {rows:,} rows", rows, "pk one bucket per task", "pk packed",
                   [t[0] for t in measured["pk one bucket per task"]], [t[0] for t in measured["pk packed"]], goal=0.9,
                   description=f"full scan of a 4-bucket primary-key table of {rows:,} rows in 4 partitions, packed by size "
                               "against one bucket per task (`source.split.target-size` = 1): large scans lose "
                               "nothing to packing; goal >= 0.9x"),
        Comparison(f"full scan, {rows:,} rows vs Parquet", rows, "parquet", "pk packed",
                   [t[0] for t in measured["parquet"]], [t[0] for t in measured["pk packed"]], goal=None,
                   description="the same scan against plain Parquet of the same rows: reported"),
    ]


def system(table: str, kind: str) -> str:
    catalog, db, name = table.split(".")
    return f"{catalog}.{db}.`{name}${kind}`"


def median(timings: list[tuple], index: int) -> float:
    return statistics.median(t[index] for t in timings)
