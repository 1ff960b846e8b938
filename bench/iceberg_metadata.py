"""The extra cost per commit of keeping Iceberg metadata (metadata.iceberg.storage): CPU seconds, files and
bytes its commits write beside the table, ours against Apache Paimon's Java core on the same commits. Each
side commits alternately to two like tables, one with the option; the difference of the two is the
metadata's cost, so everything else a commit does cancels out. Both sides write one file per partition per
commit and compact nothing (`write-only`), so that each commit is one snapshot with the same files."""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

from pyspark.sql import SparkSession

from harness import Check, Comparison, timed_with_cpu
from java_writer import java_classpath

NAME = "iceberg_metadata"
TITLE = "Iceberg metadata: the extra CPU, files and bytes per commit, ours against Paimon's Java core"
COMMITS, ROWS_PER_COMMIT, PARTITIONS = 200, 1000, 4


def _metadata_files(location: Path) -> dict[str, int]:
    directory = location / "metadata"
    return {p.name: p.stat().st_size for p in directory.iterdir()} if directory.is_dir() else {}


def _ours(spark: SparkSession, work: Path) -> dict[str, dict]:
    spark.sql(f"CREATE DATABASE IF NOT EXISTS paimon.ice_bench")
    tables = {"plain": "", "iceberg": ", 'metadata.iceberg.storage' = 'table-location'"}
    for name, extra in tables.items():
        spark.sql(f"CREATE TABLE paimon.ice_bench.{name} (id INT, v STRING, dt STRING) PARTITIONED BY (dt) "
                  f"TBLPROPERTIES ('bucket' = '-1', 'write-only' = 'true'{extra})")
    warehouse = Path(spark.conf.get("spark.sql.catalog.paimon.warehouse").removeprefix("file:"))
    found = {name: {"cpu": [], "wall": [], "files": 0, "bytes": 0} for name in tables}
    for i in range(-3, COMMITS):
        for name in tables:
            location = warehouse / "ice_bench.db" / name
            before = _metadata_files(location)
            start = (i + 3) * ROWS_PER_COMMIT
            statement = (f"INSERT INTO paimon.ice_bench.{name} SELECT CAST(id AS INT), concat('v', id), "
                         f"concat('d', id % {PARTITIONS}) FROM range({start}, {start + ROWS_PER_COMMIT}, 1, 1)")
            wall, cpu = timed_with_cpu(spark, lambda: spark.sql(statement).collect())
            added = {f: s for f, s in _metadata_files(location).items() if f not in before}
            if i >= 0:
                found[name]["cpu"].append(cpu)
                found[name]["wall"].append(wall)
                found[name]["files"] += len(added)
                found[name]["bytes"] += sum(added.values())
    return found


def _java(work: Path) -> dict[str, dict]:
    out = subprocess.run(["java", "-Xmx2g", "-cp", java_classpath(), "paimonspark.bench.JavaIcebergCommits",
                          (work / "java").as_uri(), str(COMMITS), str(ROWS_PER_COMMIT), str(PARTITIONS)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"JavaIcebergCommits failed:\n{out.stderr[-3000:]}")
    found = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return {f["table"]: f for f in found}


def _extra(side: dict[str, dict], key: str) -> float:
    """The metadata's share of a commit: the mean with it less the mean without it (means, not medians: the
    kernel counts a process's CPU in 10 ms ticks, finer than one commit's metadata takes)."""
    return statistics.mean(side["iceberg"][key]) - statistics.mean(side["plain"][key])


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    ours, java = _ours(spark, work), _java(work)
    ours_cpu, java_cpu = _extra(ours, "cpu"), _extra(java, "cpu")
    ours_files, java_files = (s["iceberg"]["files"] / COMMITS for s in (ours, java))
    ours_bytes, java_bytes = (s["iceberg"]["bytes"] / COMMITS for s in (ours, java))
    comparison = Comparison(
        "extra CPU/commit", 1, "Paimon Java", "paimon-spark", baseline_seconds=[max(java_cpu, 1e-4)],
        candidate_seconds=[max(ours_cpu, 1e-4)], goal=1.0, unit="commits",
        description=f"mean CPU seconds of a commit with Iceberg metadata less one without ({COMMITS} commits of "
                    f"{ROWS_PER_COMMIT} rows over {PARTITIONS} partitions, alternating tables); ours "
                    f"{ours_cpu * 1000:.1f} ms, Java's {java_cpu * 1000:.1f} ms; goal: no more than Java's")
    checks = [
        Check("metadata files per commit", f"ours {ours_files:.1f}, Java {java_files:.1f}", "<= Java's",
              ours_files <= java_files, "files the metadata/ directory gains per commit (a version, a list, manifests)"),
        Check("metadata bytes per commit", f"ours {ours_bytes:,.0f}, Java {java_bytes:,.0f}", "<= 1.1x Java's",
              ours_bytes <= 1.1 * java_bytes, "bytes of the files the metadata/ directory gains per commit"),
    ]
    notes = {"checks": checks, "ours_cpu_ms": {k: statistics.mean(v["cpu"]) * 1000 for k, v in ours.items()},
             "java_cpu_ms": {k: statistics.mean(v["cpu"]) * 1000 for k, v in java.items()}}
    return [comparison], notes
