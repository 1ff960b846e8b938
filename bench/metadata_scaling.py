"""Metadata scaling: how commits, point queries, time travel and the system tables behave as a
table's history grows from 10 to 1,000 small commits, with default expiry and with expiry off.

Every timing is paired with the CPU seconds the Spark JVM spent. A row compares the same operation
at 10 commits (baseline) and at 1,000 (candidate); its 'rows' are operations, so the ratio is the
throughput at 1,000 over that at 10 and the goal 0.5 means 'at most twice as slow'.
"""

from __future__ import annotations

import datetime
import statistics
from pathlib import Path

from pyspark.sql import SparkSession

from harness import Check, Comparison, timed_with_cpu

NAME = "metadata_scaling"
TITLE = "History metadata: 10 vs 1,000 commits (default expiry, expiry off)"
LEVELS = (10, 100, 1000)
QUICK_LEVELS = (10, 30, 100)  # --quick: a smoke run of the same code
CONFIGS = {
    # Paimon's defaults: expiry runs after every commit and keeps an hour of snapshots (all of them here).
    "default expiry": {},
    # Paimon's way to turn table maintenance off: no expiry (and no inline compaction) after commits.
    "expiry off": {"write-only": "true"},
}
SAMPLES = 5  # operations timed at each level; the median is reported
# Commits and planning must stay flat as history grows. The system tables list what they describe
# (every retained snapshot, every live file), so their time follows what they list: reported only.
GOALS = {
    "commit": (0.5, "goal: at most 2x slower"),
    "point query": (0.5, "planning and running a filtered point query; goal: at most 2x slower"),
    "$snapshots": (None, "lists every retained snapshot, so it grows with them: reported, no goal"),
    "$files": (None, "lists every live file (with expiry off, nothing compacts them): reported, no goal"),
}


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    results, notes, checks = [], {}, []
    warm_up(spark)
    levels = LEVELS if rows >= 10_000_000 else QUICK_LEVELS
    for label, options in CONFIGS.items():
        table = "paimon.default.history_" + label.replace(" ", "_")
        props = ", ".join(f"'{k}'='{v}'" for k, v in options.items())
        spark.sql(f"CREATE TABLE {table} (id BIGINT, day STRING, v STRING) PARTITIONED BY (day)"
                  + (f" TBLPROPERTIES ({props})" if props else ""))
        measured: dict[int, dict[str, list[tuple[float, float]]]] = {}
        commits = 0
        for level in levels:
            # Commits up to the level; the last SAMPLES of them are timed.
            while commits < level:
                commits += 1
                insert = lambda n=commits: spark.sql(  # noqa: E731
                    f"INSERT INTO {table} VALUES ({n}, 'd{n % 4}', 'v{n}'), ({n + 100000}, 'd{n % 4}', 'w{n}')")
                timing = timed_with_cpu(spark, insert)
                if commits > level - SAMPLES:
                    measured.setdefault(level, {}).setdefault("commit", []).append(timing)
            point = f"SELECT * FROM {table} WHERE day = 'd1' AND id = {level - 3}"
            latest_id = spark.sql(f"SELECT max(snapshot_id) FROM {system(table, 'snapshots')}").first()[0]
            middle_id = latest_id // 2 + 1
            queries = {
                "point query": lambda: spark.sql(point).collect(),
                "point query, time travel": lambda: spark.sql(point.replace(" WHERE", f" VERSION AS OF {middle_id} WHERE")).collect(),
                "$snapshots": lambda: spark.sql(f"SELECT count(*) FROM {system(table, 'snapshots')}").collect(),
                "$files": lambda: spark.sql(f"SELECT count(*) FROM {system(table, 'files')}").collect(),
            }
            for name, query in queries.items():
                query()  # a first run warms caches and code paths
                measured[level][name] = [timed_with_cpu(spark, query) for _ in range(SAMPLES)]
            snapshots = spark.sql(f"SELECT count(*) FROM {system(table, 'snapshots')}").first()[0]
            notes[f"{label}: snapshots retained at {level} commits"] = snapshots
            notes[f"{label}: median wall s / CPU s at {level} commits"] = {
                name: f"{median(t, 0):.3f} / {median(t, 1):.3f}" for name, t in measured[level].items()}
        first, last = levels[0], levels[-1]
        for name in ("commit", "point query", "$snapshots", "$files"):
            goal, why = GOALS[name]
            results.append(Comparison(f"{name} ({label})", 1, f"{first} commits", f"{last} commits",
                                      [t[0] for t in measured[first][name]], [t[0] for t in measured[last][name]],
                                      goal=goal, unit="ops", description=f"{name} at {last} commits against {first}, "
                                      f"{label}; {why}"))
        results.append(Comparison(f"time travel ({label})", 1, "latest snapshot", f"snapshot {middle_id}",
                                  [t[0] for t in measured[last]["point query"]],
                                  [t[0] for t in measured[last]["point query, time travel"]], goal=1 / 1.2, unit="ops",
                                  description=f"the point query at {last} commits, on a snapshot half-way back "
                                  "against the latest; goal: at most 1.2x slower"))
        if label == "expiry off":
            checks.append(expire_all(spark, table, latest_id))
    notes["checks"] = checks
    notes["samples per measurement"] = SAMPLES
    return results, notes


def warm_up(spark: SparkSession) -> None:
    """Commits and queries on a scratch table first, so the 10-commit level is not timed on a cold JVM."""
    spark.sql("CREATE TABLE paimon.default.history_warm_up (id BIGINT, day STRING, v STRING) PARTITIONED BY (day)")
    for n in range(30):
        spark.sql(f"INSERT INTO paimon.default.history_warm_up VALUES ({n}, 'd{n % 4}', 'v')")
        spark.sql(f"SELECT * FROM paimon.default.history_warm_up VERSION AS OF {n + 1} WHERE id = {n}").collect()
        spark.sql(f"SELECT count(*) FROM {system('paimon.default.history_warm_up', 'files')}").collect()


def system(table: str, kind: str) -> str:
    catalog, db, name = table.split(".")
    return f"{catalog}.{db}.`{name}${kind}`"


def median(timings: list[tuple[float, float]], index: int) -> float:
    return statistics.median(t[index] for t in timings)


def expire_all(spark: SparkSession, table: str, latest: int) -> Check:
    """Expires every snapshot but the latest of the write-only table in one call."""
    future = (datetime.datetime.now() + datetime.timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S")
    result: list = []
    wall, cpu = timed_with_cpu(spark, lambda: result.extend(spark.sql(
        f"CALL paimon.sys.expire_snapshots(table => '{table.split('.', 1)[1]}', retain_max => 1, retain_min => 1, "
        f"older_than => '{future}', max_deletes => {latest})").collect()))
    expired = result[0][0]
    return Check(f"expire {latest:,} snapshots", f"{expired} snapshots in {wall:.2f} s ({cpu:.2f} CPU-s)", "< 10 s",
                 expired >= latest - 1 and wall < 10,
                 "one expire_snapshots call over the whole history of the write-only table")
