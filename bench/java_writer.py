"""Apache Paimon's Java core as a baseline: the engine's test classpath (paimon-bundle included) and
JavaIngest, which writes the upsert-ingest workload (bench/upsert_ingest.py's keys and values) with
Paimon's own writer in a JVM of its own and reports the CPU seconds of its timed batches, and of its
JIT compiler threads over them (`jit_cpu_s`, as harness.compiler_cpu_seconds reads them of the Spark JVM).
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BATCHES, BUCKETS = 10, 8  # the upsert-ingest workload's shape (bench/upsert_ingest.py)


def java_classpath() -> str:
    """The engine's test classpath (paimon-bundle included), as sbt resolves it."""
    out = subprocess.run([str(ROOT / "build" / "sbt"), "-Dsbt.supershell=false", "engine/Test/compile",
                          "export engine/Test/fullClasspath"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def java_ingest(classpath: str, warehouse: Path, producer: str, rows: int, extra: list[str] = (),
                jvm_options: list[str] = ()) -> dict:
    """JavaIngest's JSON line; `extra`: its optional arguments (how many batches, more table options);
    `jvm_options`: more options of its JVM (a flight recording, say)."""
    out = subprocess.run(["java", "-Xmx4g", *jvm_options, "-cp", classpath, "paimonspark.bench.JavaIngest",
                          str(warehouse), producer, str(rows), str(BATCHES), str(BUCKETS), *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(next(line for line in out.stdout.splitlines() if line.startswith("{")))


def median_cpu_seconds(runs: list[dict], without_jit: bool = False) -> float:
    """The median CPU seconds of JavaIngest's runs over their timed batches; `without_jit`: less what
    their JIT compiler threads used meanwhile."""
    return statistics.median(r["cpu_s"] - (r["jit_cpu_s"] if without_jit else 0.0) for r in runs)
