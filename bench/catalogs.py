"""Catalog operations through a Hive Metastore against the filesystem catalog, in one session: creating
1,000 tables, listing them, loading tables and one-row commits; Apache Paimon's Java HiveCatalog and
filesystem catalog on the same operations as the reference. The metastore is the tests' own (Hive 2.3.10
from pyspark's jars, embedded Derby, on 127.0.0.1), so its latency is a local server's on the same 2 cores.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from java_writer import java_classpath
from harness import Check, Comparison, timed, timed_with_cpu

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from metastore import Metastore  # noqa: E402  (the tests' metastore, one definition)

NAME = "catalogs"
TITLE = "Catalogs: Hive Metastore vs filesystem, ours and Paimon's Java catalogs (operations per second)"
TABLES, LOADS, COMMITS = 1000, 50, 30
# A commit through the metastore catalog with locks off may cost at most this much more than one
# through the filesystem catalog (issue 29's goal): the metastore is only asked where the table is.
COMMIT_GOAL = 1 / 1.2


def _register(spark: SparkSession, name: str, options: dict[str, str]) -> None:
    spark.conf.set(f"spark.sql.catalog.{name}", "paimonspark.spark.PaimonCatalog")
    for key, value in options.items():
        spark.conf.set(f"spark.sql.catalog.{name}.{key}", value)


def _ours(spark: SparkSession, catalog: str) -> dict[str, list[float]]:
    spark.sql(f"CREATE DATABASE {catalog}.bench")
    create = [timed(spark, lambda i=i: spark.sql(f"CREATE TABLE {catalog}.bench.t{i} (id INT)")) for i in range(TABLES)]
    listing = [timed(spark, lambda: spark.sql(f"SHOW TABLES IN {catalog}.bench").collect()) for _ in range(3)]
    assert spark.sql(f"SHOW TABLES IN {catalog}.bench").count() == TABLES
    load = [timed(spark, lambda i=i: spark.table(f"{catalog}.bench.t{i}").schema) for i in range(LOADS)]
    return {"create": create, "list": listing, "load": load}


def _commits(spark: SparkSession, tables: list[str]) -> dict[str, list[tuple[float, float]]]:
    """One-row appends, interleaved over the tables after three warm-up commits each."""
    def commit(table: str, i: int) -> tuple[float, float]:
        return timed_with_cpu(spark, lambda: spark.sql(f"INSERT INTO {table} VALUES ({i})"))

    for table in tables:
        [commit(table, -1) for _ in range(3)]
    found: dict[str, list[tuple[float, float]]] = {t: [] for t in tables}
    for i in range(COMMITS):
        for table in tables:
            found[table].append(commit(table, i))
    return found


def _java(work: Path, metastore: Metastore) -> dict[str, dict[str, list[float]]]:
    out = subprocess.run(["java", "-Xmx2g", "-cp", java_classpath(), "paimonspark.bench.JavaCatalogOps",
                          (work / "java-fs").as_uri(), (work / "java-hms").as_uri(), metastore.uri,
                          str(TABLES), str(LOADS), str(COMMITS)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"JavaCatalogOps failed:\n{out.stderr[-3000:]}")
    found = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return {f["catalog"]: f for f in found}


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    metastore = Metastore(work / "hms")
    try:
        hive = {"metastore": "hive", "uri": metastore.uri, "warehouse": (work / "hms-warehouse").as_uri()}
        _register(spark, "fs_bench", {"warehouse": (work / "fs-warehouse").as_uri()})
        _register(spark, "hms_bench", {**hive, "lock.enabled": "false"})
        _register(spark, "hms_lock_bench", {**hive, "lock.enabled": "true"})
        ours = {c: _ours(spark, c) for c in ("fs_bench", "hms_bench")}
        # The same metastore's table t1, through the catalog that takes the lock.
        by_table = _commits(spark, ["fs_bench.bench.t0", "hms_bench.bench.t0", "hms_lock_bench.bench.t1"])
        commits = {t.split(".")[0]: s for t, s in by_table.items()}
        java = _java(work, metastore)
    finally:
        metastore.stop()

    fs, hms = "filesystem catalog", "Hive Metastore catalog"
    walls = {c: [w for w, _ in s] for c, s in commits.items()}
    results = [
        Comparison("create table", 1, fs, hms, ours["fs_bench"]["create"], ours["hms_bench"]["create"], goal=None,
                   unit="operations", description=f"CREATE TABLE, {TABLES} times: schema 0, then the metastore record"),
        Comparison(f"list {TABLES} tables", 1, fs, hms, ours["fs_bench"]["list"], ours["hms_bench"]["list"], goal=None,
                   unit="operations", description="SHOW TABLES: directories and their schema files, against "
                                                  "getAllTables and getTableObjectsByName in batches of 300"),
        Comparison("load table", 1, fs, hms, ours["fs_bench"]["load"], ours["hms_bench"]["load"], goal=None,
                   unit="operations", description="resolving a table for a query: its latest schema file, after "
                                                  "the metastore's record of where it is"),
        Comparison("commit, locks off", 1, fs, hms, walls["fs_bench"], walls["hms_bench"], goal=COMMIT_GOAL,
                   unit="operations", description="one-row INSERT, interleaved; the metastore catalog adds the "
                                                  "table's lookup, the commit itself does not touch it"),
        Comparison("commit, locks on", 1, fs, hms + " (lock.enabled)", walls["fs_bench"], walls["hms_lock_bench"],
                   goal=None, unit="operations", description="one-row INSERT holding the metastore's table lock "
                                                             "while the snapshot is published"),
    ]
    for op, ours_op in (("create", "create"), ("list", "list"), ("load", "load"), ("commit", None)):
        ours_seconds = walls["hms_bench"] if ours_op is None else ours["hms_bench"][ours_op]
        results.append(Comparison(f"{op}: Java HiveCatalog vs ours", 1, "Java HiveCatalog", "ours (metastore)",
                                  java["hive"][op], ours_seconds, goal=None, unit="operations",
                                  description="Java calls its catalog directly; ours goes through Spark SQL"))
    median_ms = lambda xs: round(1000 * statistics.median(xs), 1)  # noqa: E731
    notes = {"median_ms": {
        "ours": {c: {op: median_ms(v) for op, v in ops.items()} for c, ops in ours.items()},
        "java": {c: {op: median_ms(java[c][op]) for op in ("create", "list", "load", "commit")} for c in java},
        "commit": {"fs": median_ms(walls["fs_bench"]), "hms": median_ms(walls["hms_bench"]),
                   "hms_locked": median_ms(walls["hms_lock_bench"])}},
        "commit_cpu_s": {c: round(statistics.median(cpu for _, cpu in s), 3) for c, s in commits.items()}}
    commit_ratio = statistics.median(walls["hms_bench"]) / statistics.median(walls["fs_bench"])
    notes["checks"] = [Check("commit through the metastore, locks off", f"{commit_ratio:.2f}x the filesystem "
                             "catalog's median", "<= 1.20x", commit_ratio <= 1.2,
                             f"{COMMITS} one-row commits each, interleaved with the locked catalog's")]
    return results, notes
