"""Cross-partition upserts: what looking up where every key lives costs a write.

Two primary-key tables over the same rows, partitioned by `dt` into 8 partitions, with dynamic buckets:
`cp_moving` is keyed by `id` alone (a cross-partition table: each write first bootstraps where every key
lives and moves keys whose `dt` changed), `cp_fixed` by `(id, dt)` (Paimon's HASH index; a changed `dt`
makes a new key). Both load the same rows, then take the same upserts of a tenth of the keys, half of
them with another `dt`, in alternating order. Both are `write-only`, so the timings hold the write and
its key lookups, not the compactions after. The bootstrap's own read (key, partition and bucket of every
live row, the scan it runs before its shuffle) is timed apart, and so is a plain scan of the table.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from harness import Comparison, timed_with_cpu
from scan_packing import median

NAME = "cross_partition"
TITLE = "Cross-partition upserts: a write that looks up every key's partition, against one keyed by partition"
PARTITIONS = 8
TABLES = {"cross-partition (key id)": ("cp_moving", "id"), "key includes partition (id, dt)": ("cp_fixed", "id,dt")}


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    loads: dict = {}
    for system, (table, key) in TABLES.items():
        spark.sql(f"CREATE TABLE paimon.default.{table} (id BIGINT, dt STRING, amount BIGINT, note STRING) "
                  f"PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = '{key}', 'bucket' = '-1', 'write-only' = 'true')")
        loads[system] = timed_with_cpu(spark, lambda: rows_of(spark, rows, 0).writeTo(f"paimon.default.{table}").append())
    upserts = max(1, rows // 10)
    measured: dict = {}
    for i in range(repeats):
        for system in list(TABLES) if i % 2 == 0 else list(reversed(TABLES)):
            table = TABLES[system][0]
            batch = upsert_rows(spark, rows, upserts, i + 1)
            measured.setdefault(system, []).append(timed_with_cpu(
                spark, lambda: batch.writeTo(f"paimon.default.{table}").append()))
    moving = TABLES["cross-partition (key id)"][0]
    lookup = [timed_with_cpu(spark, lambda: spark.sql(f"SELECT id, dt, __paimon_bucket FROM paimon.default.{moving}")
                             .write.format("noop").mode("overwrite").save()) for _ in range(repeats)]
    scan = [timed_with_cpu(spark, lambda: spark.sql(f"SELECT * FROM paimon.default.{moving}")
                           .write.format("noop").mode("overwrite").save()) for _ in range(repeats)]
    counts = {system: spark.sql(f"SELECT count(*) FROM paimon.default.{t}").head()[0] for system, (t, _) in TABLES.items()}
    notes = {
        "partitions": PARTITIONS, "upserts per write": upserts,
        "load wall s / CPU s": {s: f"{w:.1f} / {c:.1f}" for s, (w, c) in loads.items()},
        "upsert median wall s / CPU s": {s: f"{median(t, 0):.2f} / {median(t, 1):.2f}" for s, t in measured.items()},
        "bootstrap read (id, dt, __paimon_bucket of every row) median wall s / CPU s":
            f"{median(lookup, 0):.2f} / {median(lookup, 1):.2f}",
        "full scan median wall s / CPU s": f"{median(scan, 0):.2f} / {median(scan, 1):.2f}",
        "rows after the upserts": counts,
    }
    baseline, candidate = "key includes partition (id, dt)", "cross-partition (key id)"
    results = [
        Comparison("load", rows, baseline, candidate, [loads[baseline][0]], [loads[candidate][0]], goal=None,
                   description=f"{rows:,} rows into an empty table (the bootstrap finds no key); reported"),
        Comparison("upsert", upserts, baseline, candidate, [t[0] for t in measured[baseline]],
                   [t[0] for t in measured[candidate]], goal=None,
                   description=f"{upserts:,} upserts (half with another dt) into a {rows:,}-row table: the "
                               "cross-partition write bootstraps every key first; reported"),
    ]
    return results, notes


def rows_of(spark: SparkSession, rows: int, round_: int):
    id_ = F.col("id")
    return spark.range(rows).select(id_, F.concat(F.lit("d"), ((id_ + round_) % PARTITIONS).cast("string")).alias("dt"),
                                    (id_ * 31 + round_).alias("amount"), F.sha2(id_.cast("string"), 256).alias("note"))


def upsert_rows(spark: SparkSession, rows: int, upserts: int, round_: int):
    """A tenth of the keys, spread over the table; odd ones move to the next partition each round."""
    id_ = F.col("id")
    picked = spark.range(upserts).select(((id_ * 10 + round_) % rows).alias("id"))
    shift = F.when(picked.id % 2 == 1, F.lit(round_)).otherwise(F.lit(0))
    return picked.select("id", F.concat(F.lit("d"), ((picked.id + shift) % PARTITIONS).cast("string")).alias("dt"),
                         (picked.id * 7 + round_).alias("amount"), F.sha2(picked.id.cast("string"), 256).alias("note"))
