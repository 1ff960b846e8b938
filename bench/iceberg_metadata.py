"""The extra cost per commit of keeping Iceberg metadata (metadata.iceberg.storage): CPU seconds, files and
bytes its commits write beside the table, ours against Apache Paimon's Java core on the same commits. Each
side commits alternately to two like tables, one with the option; the difference of the two is the
metadata's cost, so everything else a commit does cancels out. Both sides write one file per partition per
commit and compact nothing (`write-only`), so that each commit is one snapshot with the same files: first
appends over every partition, then overwrites of one partition each, which remove files from the metadata."""

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
COMMITS, ROWS_PER_COMMIT, PARTITIONS, OVERWRITES = 200, 1000, 4, 50


def _metadata_files(location: Path) -> dict[str, int]:
    directory = location / "metadata"
    return {p.name: p.stat().st_size for p in directory.iterdir()} if directory.is_dir() else {}


def _ours(spark: SparkSession, work: Path) -> dict[str, dict[str, dict]]:
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.ice_bench")
    tables = {"plain": "", "iceberg": ", 'metadata.iceberg.storage' = 'table-location'"}
    for name, extra in tables.items():
        spark.sql(f"CREATE TABLE paimon.ice_bench.{name} (id INT, v STRING, dt STRING) PARTITIONED BY (dt) "
                  f"TBLPROPERTIES ('bucket' = '-1', 'write-only' = 'true'{extra})")
    warehouse = Path(spark.conf.get("spark.sql.catalog.paimon.warehouse").removeprefix("file:"))

    def append(name: str, i: int) -> str:
        start = i * ROWS_PER_COMMIT
        return (f"INSERT INTO paimon.ice_bench.{name} SELECT CAST(id AS INT), concat('v', id), "
                f"concat('d', id % {PARTITIONS}) FROM range({start}, {start + ROWS_PER_COMMIT}, 1, 1)")

    def overwrite(name: str, i: int) -> str:
        start = i * ROWS_PER_COMMIT
        return (f"INSERT OVERWRITE paimon.ice_bench.{name} PARTITION (dt = 'd{i % PARTITIONS}') SELECT CAST(id AS INT), "
                f"concat('v', id) FROM range({start}, {start + ROWS_PER_COMMIT // PARTITIONS}, 1, 1)")

    def measure(count: int, statement) -> dict[str, dict]:
        found = {name: {"cpu": [], "wall": [], "files": 0, "bytes": 0} for name in tables}
        for i in range(-3, count):
            for name in tables:
                location = warehouse / "ice_bench.db" / name
                before = _metadata_files(location)
                text = statement(name, i + 3)
                wall, cpu = timed_with_cpu(spark, lambda: spark.sql(text).collect())
                added = {f: s for f, s in _metadata_files(location).items() if f not in before}
                if i >= 0:
                    found[name]["cpu"].append(cpu)
                    found[name]["wall"].append(wall)
                    found[name]["files"] += len(added)
                    found[name]["bytes"] += sum(added.values())
        return found

    return {"append": measure(COMMITS, append), "overwrite": measure(OVERWRITES, overwrite)}


def _java(work: Path) -> dict[str, dict[str, dict]]:
    out = subprocess.run(["java", "-Xmx2g", "-cp", java_classpath(), "paimonspark.bench.JavaIcebergCommits",
                          (work / "java").as_uri(), str(COMMITS), str(ROWS_PER_COMMIT), str(PARTITIONS), str(OVERWRITES)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"JavaIcebergCommits failed:\n{out.stderr[-3000:]}")
    found: dict[str, dict[str, dict]] = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            f = json.loads(line)
            found.setdefault(f["phase"], {})[f["table"]] = f
    return found


def _extra(side: dict[str, dict], key: str) -> float:
    """The metadata's share of a commit: the mean with it less the mean without it (means, not medians: the
    kernel counts a process's CPU in 10 ms ticks, finer than one commit's metadata takes)."""
    return statistics.mean(side["iceberg"][key]) - statistics.mean(side["plain"][key])


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    ours, java = _ours(spark, work), _java(work)
    comparisons, checks, notes = [], [], {}
    for phase, count, what in (("append", COMMITS, f"appends of {ROWS_PER_COMMIT} rows over {PARTITIONS} partitions"),
                               ("overwrite", OVERWRITES, f"overwrites of one partition with {ROWS_PER_COMMIT // PARTITIONS} "
                                                         f"rows, after the {COMMITS} appends")):
        ours_cpu, java_cpu = _extra(ours[phase], "cpu"), _extra(java[phase], "cpu")
        ours_files, java_files = (s[phase]["iceberg"]["files"] / count for s in (ours, java))
        ours_bytes, java_bytes = (s[phase]["iceberg"]["bytes"] / count for s in (ours, java))
        comparisons.append(Comparison(
            f"extra CPU/commit ({phase})", 1, "Paimon Java", "paimon-spark", baseline_seconds=[max(java_cpu, 1e-4)],
            candidate_seconds=[max(ours_cpu, 1e-4)], goal=1.0, unit="commits",
            description=f"mean CPU seconds of a commit with Iceberg metadata less one without ({count} {what}, "
                        f"alternating tables); ours {ours_cpu * 1000:.1f} ms, Java's {java_cpu * 1000:.1f} ms; "
                        "goal: no more than Java's"))
        checks += [
            Check(f"metadata files per commit ({phase})", f"ours {ours_files:.1f}, Java {java_files:.1f}", "<= Java's",
                  ours_files <= java_files, "files the metadata/ directory gains per commit (a version, a list, manifests)"),
            Check(f"metadata bytes per commit ({phase})", f"ours {ours_bytes:,.0f}, Java {java_bytes:,.0f}",
                  "<= 1.1x Java's", ours_bytes <= 1.1 * java_bytes,
                  "bytes of the files the metadata/ directory gains per commit"),
        ]
        notes[f"ours_cpu_ms_{phase}"] = {k: statistics.mean(v["cpu"]) * 1000 for k, v in ours[phase].items()}
        notes[f"java_cpu_ms_{phase}"] = {k: statistics.mean(v["cpu"]) * 1000 for k, v in java[phase].items()}
    return comparisons, {"checks": checks, **notes}
