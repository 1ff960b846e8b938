"""Deletion vectors on a primary-key table: what they cost at ingest and save at scan time.

The same five batches of upserts (half updates) go into two copies of one compacted table: one with
default options (inline universal compaction; reads merge the sorted runs it leaves) and one with
`deletion-vectors.enabled` (every write compacted into levels above 0, replaced rows marked; reads
merge nothing). Then both are scanned, against a fully compacted copy (one run per bucket), and
Apache Paimon's Java writer ingests the same batches into a table with deletion vectors.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

from pyspark.sql import SparkSession

from append_scan import checksum
from java_writer import against_java, compaction_work, java_classpath, java_ingest
from harness import GC_THREADS, JIT_THREADS, Check, Comparison, columns_sql, copy_table, timed_with_cpu, warehouse_dir
from upsert_ingest import BUCKETS, PINNED_JAVA_OPTIONS, PINNED_PROPERTIES, Sizes, cached_batches, preload

NAME = "deletion_vectors"
TITLE = "Deletion vectors: upsert ingest and scans, merge-on-read against deletion vectors"
INGEST_ROWS = 10_000_000  # sizes the batches (a tenth each) and the preload (half of it)
DV_BATCHES = 5
SCAN_GOAL = 0.9  # a deletion-vector scan at least 0.9x the throughput of a fully compacted table's
SCAN_REPEATS = 5  # scans take seconds: more runs than the ingest's steady the median


def sorted_runs(spark: SparkSession, table: str) -> float:
    """Sorted runs per bucket, averaged: level-0 files each, and each level above."""
    return spark.sql(f"SELECT avg(runs) FROM (SELECT partition, bucket, count(DISTINCT CASE WHEN level = 0 "
                     f"THEN file_path ELSE CAST(level AS STRING) END) AS runs FROM "
                     f"paimon.default.`{table}$files` GROUP BY partition, bucket)").first()[0]


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    ingest_rows = INGEST_ROWS if rows >= 10_000_000 else max(100_000, rows // 5)
    sizes = Sizes(ingest_rows)
    db = warehouse_dir(spark) / "default.db"
    batches = cached_batches(spark, sizes, DV_BATCHES)
    columns = batches[0].columns
    schema_sql = columns_sql(batches[0])
    spark.sql(f"CREATE TABLE paimon.default.dv_base ({schema_sql}) TBLPROPERTIES ('primary-key' = 'id', "
              f"'bucket' = '{BUCKETS}')")
    preload(spark, sizes).writeTo("paimon.default.dv_base").append()
    spark.sql("CALL paimon.sys.compact(table => 'default.dv_base')").collect()

    def copy(target: str, vectors: bool) -> None:
        # Both tables, and Paimon's Java writer below, on one compaction schedule (upsert_ingest.PINNED_SCHEDULE).
        copy_table(spark, "dv_base", target)
        spark.sql(f"ALTER TABLE paimon.default.{target} SET TBLPROPERTIES ({PINNED_PROPERTIES})")
        if vectors:  # the copy is one compacted run per bucket: switching the mode on loses nothing
            spark.sql(f"ALTER TABLE paimon.default.{target} SET TBLPROPERTIES ("
                      "'deletion-vectors.modifiable' = 'true', 'deletion-vectors.enabled' = 'true')")

    def ingest(target: str) -> tuple[float, dict]:
        """Wall seconds; CPU, JIT and GC seconds as JavaIngest reports them."""
        wall, cpu = 0.0, {"cpu_s": 0.0, "jit_cpu_s": 0.0, "gc_cpu_s": 0.0}
        for df in batches:
            w, c, j, g = timed_with_cpu(spark, lambda: df.writeTo(f"paimon.default.{target}").append(),
                                        JIT_THREADS, GC_THREADS)
            wall += w
            cpu = {"cpu_s": cpu["cpu_s"] + c, "jit_cpu_s": cpu["jit_cpu_s"] + j, "gc_cpu_s": cpu["gc_cpu_s"] + g}
        return wall, cpu

    def scan(table: str) -> None:
        spark.table(f"paimon.default.{table}").write.format("noop").mode("overwrite").save()

    systems = {"merge on read": False, "deletion vectors": True}
    for name, vectors in systems.items():  # untimed warm-up of both write paths
        copy(f"dv_warmup_{int(vectors)}", vectors)
        ingest(f"dv_warmup_{int(vectors)}")
    wall = {s: [] for s in systems}
    ours: dict[str, list[dict]] = {s: [] for s in systems}  # per run, as JavaIngest reports Java's
    tables = {s: f"dv_{'dv' if v else 'mor'}" for s, v in systems.items()}
    classpath = java_classpath()
    for i in range(repeats):
        for system in (list(systems) if i % 2 == 0 else list(reversed(systems))):
            copy(tables[system], systems[system])
            w, c = ingest(tables[system])
            c["compaction"] = compaction_work(classpath, db / tables[system], DV_BATCHES)
            wall[system].append(w)
            ours[system].append(c)
            print(f"  run {i + 1}: ingest {system:<17} {w:6.1f} s wall {c['cpu_s']:6.1f} CPU-s "
                  f"({c['gc_cpu_s']:.1f} GC, {c['jit_cpu_s']:.1f} JIT)", flush=True)

    # The tables of the last run stay for the scans, beside a fully compacted copy.
    copy_table(spark, tables["merge on read"], "dv_compacted")
    spark.sql("CALL paimon.sys.compact(table => 'default.dv_compacted')").collect()
    scanned = {"merge on read": tables["merge on read"], "deletion vectors": tables["deletion vectors"],
               "compacted": "dv_compacted"}
    sums = {s: checksum(spark.table(f"paimon.default.{t}").select(*columns), columns) for s, t in scanned.items()}
    if len(set(sums.values())) != 1:
        raise AssertionError(f"the tables differ after the same upserts: {sums}")
    runs = {s: sorted_runs(spark, t) for s, t in scanned.items()}
    for t in scanned.values():
        scan(t)  # untimed: each read path's class loading and JIT
    scan_wall = {s: [] for s in scanned}
    scan_cpu = {s: [] for s in scanned}
    for i in range(max(repeats, SCAN_REPEATS)):
        for system in (list(scanned) if i % 2 == 0 else list(reversed(scanned))):
            w, c = timed_with_cpu(spark, lambda: scan(scanned[system]))
            scan_wall[system].append(w)
            scan_cpu[system].append(c)
            print(f"  run {i + 1}: scan {system:<19} {w:6.2f} s wall {c:6.1f} CPU-s", flush=True)

    java_warehouse = work / "java_dv"
    java = java_ingest(classpath, java_warehouse, "none", ingest_rows, spark.conf.get("spark.driver.memory"),
                       extra=[str(DV_BATCHES), ",".join(["deletion-vectors.enabled=true", *PINNED_JAVA_OPTIONS])])
    shutil.rmtree(java_warehouse, ignore_errors=True)
    print(f"  java deletion vectors {java['wall_s']:6.1f} s wall {java['cpu_s']:6.1f} CPU-s "
          f"({java['gc_cpu_s']:.1f} GC, {java['jit_cpu_s']:.1f} JIT)", flush=True)

    ingested = DV_BATCHES * sizes.batch
    table_rows = sums["compacted"][0]
    comparisons = [
        Comparison("ingest: deletion vectors vs merge on read", ingested, "merge on read", "deletion vectors",
                   wall["merge on read"], wall["deletion vectors"], goal=None,
                   description=f"{DV_BATCHES} batches of {sizes.batch:,} upserts (half updates) into a compacted "
                               f"{sizes.keys_before(0):,}-row, {BUCKETS}-bucket table, inline compaction in both, on "
                               f"one schedule with Paimon's Java writer ({PINNED_PROPERTIES}); "
                               "with deletion vectors every write is compacted above level 0 with lookups"),
        Comparison("scan: merge on read vs compacted", table_rows, "compacted", "merge on read",
                   scan_wall["compacted"], scan_wall["merge on read"], goal=None,
                   description="full scan of every column after the upserts, against the same rows fully compacted"),
        Comparison("scan: deletion vectors vs compacted", table_rows, "compacted", "deletion vectors",
                   scan_wall["compacted"], scan_wall["deletion vectors"], goal=SCAN_GOAL,
                   description="full scan of the deletion-vector table (files above level 0 as they are, marked rows "
                               "skipped) against the same rows fully compacted"),
        Comparison("scan: deletion vectors vs merge on read", table_rows, "merge on read", "deletion vectors",
                   scan_wall["merge on read"], scan_wall["deletion vectors"], goal=None,
                   description="the two tables after the same upserts"),
    ]
    med = {s: statistics.median(r["cpu_s"] for r in ours[s]) for s in systems}
    checks = [
        against_java("CPU per row, deletion-vector ingest: ours against Paimon's Java writer", ingested,
                     ours["deletion vectors"], [java], 1.0,
                     f"{DV_BATCHES} batches of upserts into a compacted table with deletion-vectors.enabled (ours in "
                     "local[2]; its writer compacts and looks up at commit, as Paimon's does), against Paimon's Java "
                     "writer doing the same (one run)."),
        Check("CPU of deletion-vector ingest against merge-on-read ingest",
              f"{med['deletion vectors'] / med['merge on read']:.2f}x ({med['deletion vectors']:.1f} against "
              f"{med['merge on read']:.1f} CPU-s)", "reported", True,
              "what marking rows (lookups, a compaction per write) costs the writer"),
    ]
    notes = {
        "ingest_rows": ingested, "table_rows": table_rows, "buckets": BUCKETS, "batches": DV_BATCHES,
        "repeats": repeats, "checks": checks,
        "sorted_runs_per_bucket": runs,
        "ingest_cpu": ours, "ingest_wall_seconds": wall,
        "scan_cpu_seconds": scan_cpu, "java_deletion_vectors": java,
        "vectors": spark.sql(f"SELECT count(*), sum(row_count) FROM paimon.default."
                             f"`{tables['deletion vectors']}$table_indexes`").first().asDict(),
    }
    for t in set(scanned.values()) | {"dv_base", "dv_warmup_0", "dv_warmup_1"}:
        spark.sql(f"DROP TABLE IF EXISTS paimon.default.{t}")
    for df in batches:
        df.unpersist()
    return comparisons, notes
