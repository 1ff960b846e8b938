"""Apache Paimon's Java core as a baseline: the engine's test classpath (paimon-bundle first) and
JavaIngest, which writes the upsert-ingest workload (bench/upsert_ingest.py's keys, values and column
types) with Paimon's own writer in a JVM of its own, with the Spark JVM's heap, and reports the CPU
seconds of its timed batches, of its JIT compiler threads (`jit_cpu_s`) and of its GC threads
(`gc_cpu_s`) over them, as harness.timed_with_cpu reads them of the Spark JVM, and what compaction
did in each batch (`compaction`, CompactionWork). `compaction_work` reads the same of one of our tables.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path
from typing import Optional

from harness import GC_LOGS, Check, java_heap

ROOT = Path(__file__).resolve().parent.parent
BATCHES, BUCKETS = 10, 8  # the upsert-ingest workload's shape (bench/upsert_ingest.py)
FAIR_COMPACTION = 0.10  # compaction rows of the two sides further apart than this: the CPU ratio compares unlike work


def java_classpath() -> str:
    """The engine's test classpath, as sbt resolves it, with paimon-bundle first: its classes (the
    zstd-jni it was built with, say) win over those of Spark and the other test libraries."""
    out = subprocess.run([str(ROOT / "build" / "sbt"), "-Dsbt.supershell=false", "engine/Test/compile",
                          "export engine/Test/fullClasspath"], cwd=ROOT, capture_output=True, text=True, check=True)
    entries = out.stdout.strip().splitlines()[-1].split(":")
    return ":".join(sorted(entries, key=lambda e: "/paimon-bundle-" not in e))


def java_ingest(classpath: str, warehouse: Path, producer: str, rows: int, heap: str, extra: list[str] = (),
                jvm_options: list[str] = ()) -> dict:
    """JavaIngest's JSON line; `heap`: the Spark JVM's (spark.driver.memory), fixed from the start as
    ours is (harness.java_heap); `extra`: its optional arguments (how many batches, more table options);
    `jvm_options`: more options of its JVM (a flight recording, say)."""
    GC_LOGS.mkdir(exist_ok=True)
    gc_log = GC_LOGS / f"java_gc_{warehouse.name}_{producer}.log"
    out = subprocess.run(["java", *java_heap(heap), f"-Xlog:gc:file={gc_log}", *jvm_options,
                          "-cp", classpath, "paimonspark.bench.JavaIngest",
                          str(warehouse), producer, str(rows), str(BATCHES), str(BUCKETS), *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(next(line for line in out.stdout.splitlines() if line.startswith("{")))


def compaction_work(classpath: str, table: Path, batches: int) -> list[dict]:
    """What compaction did in each of the last `batches` batches into one of our tables, read by
    Paimon's Java core as JavaIngest reads its own: rows read and written, runs and rows per bucket."""
    out = subprocess.run(["java", "-cp", classpath, "paimonspark.bench.CompactionWork", str(table), str(batches)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against_java(name: str, rows: int, ours: list[dict], java: list[dict], goal: Optional[float],
                 description: str, issue_goal: bool = False) -> Check:
    """The check of CPU per row, ours against Paimon's Java writer on the same batches: `ours` holds a dict per
    run as JavaIngest prints one (`cpu_s`, `jit_cpu_s`, `gc_cpu_s`, `compaction`). Beside the ratio, with and
    without the JIT compilers' threads, the GC and JIT threads' CPU and the compaction work of both sides;
    the goal (`issue_goal`: one an issue set) fails when that work differs by more than FAIR_COMPACTION."""
    def per_row(runs: list[dict], key: str = "cpu_s", less: str = "") -> float:
        return statistics.median(r[key] - (r[less] if less else 0.0) for r in runs) / rows * 1e6

    (our_read, our_written, our_moved), (java_read, java_written, java_moved) = (
        compaction_rows(r["compaction"] for r in side) for side in (ours, java))
    our_total, java_total = our_read + our_written, java_read + java_written
    fair = abs(our_total - java_total) <= FAIR_COMPACTION * max(our_total, java_total)
    ratio, settled = per_row(ours) / per_row(java), per_row(ours, less="jit_cpu_s") / per_row(java, less="jit_cpu_s")

    def runs(side: list[dict]) -> str:
        last = side[-1]["compaction"][-1]["runs"]
        return f"{min(last)}-{max(last)}"

    return Check(
        name=name,
        measured=f"{per_row(ours):.2f} against {per_row(java):.2f} CPU-µs per row ({ratio:.2f}x); without JIT "
                 f"{per_row(ours, less='jit_cpu_s'):.2f} against {per_row(java, less='jit_cpu_s'):.2f} "
                 f"({settled:.2f}x); of those GC {per_row(ours, 'gc_cpu_s'):.2f} against "
                 f"{per_row(java, 'gc_cpu_s'):.2f}, JIT {per_row(ours, 'jit_cpu_s'):.2f} against "
                 f"{per_row(java, 'jit_cpu_s'):.2f}; compaction rows read/written (moved up unwritten): ours "
                 f"{our_read:,}/{our_written:,} ({our_moved:,}), Java {java_read:,}/{java_written:,} ({java_moved:,}); "
                 f"sorted runs per bucket after the last batch: ours {runs(ours)}, Java {runs(java)}"
                 + ("" if fair else f"; UNFAIR: compaction rows read and written differ by more than "
                                    f"{FAIR_COMPACTION:.0%}"),
        goal="reported" if goal is None else f"<= {goal:.2f}x",
        passed=goal is None or (fair and ratio <= goal),
        description=f"{description} Java: Apache Paimon 1.4.2's core (paimon-bundle first on its classpath, "
                    f"bench/java_writer.py) in a JVM of its own with the Spark JVM's heap, fixed (-Xms = -Xmx) and "
                    f"touched at start, "
                    f"writing the same batches (the same keys, values and column types) into the same table, "
                    f"preloaded and compacted the same way, one batch commit each, after an untimed warm-up; CPU "
                    f"seconds of its JVM over the timed batches (each batch's rows built before its timing, "
                    f"packed into one array so that they cost its garbage collector nothing), median of "
                    f"{len(java)} fresh JVMs. Ours: CPU seconds of the Spark JVM over the same writes, median of "
                    f"the runs; it includes reading the cached batches and shuffling them into buckets, which the "
                    f"Java writer, handed rows in memory, does not do. Of those, each JVM's garbage collector "
                    f"threads (G1's) and JIT compiler threads (C1, C2), from /proc, over the same batches; "
                    f"without JIT: the writers' own work once compiled, as a long-running job sees it. Compaction: "
                    f"rows of the files the COMPACT snapshots deleted and added over all batches, and apart those of "
                    f"the files they moved to another level without rewriting them (with a lookup changelog "
                    f"producer or deletion vectors, Paimon's Java writer still reads a level-0 file it moves, to "
                    f"look its keys up), medians of the runs, read from both tables' manifests by Paimon's Java core "
                    f"(CompactionWork; per batch, with runs and rows per bucket after each, in the notes). Rows read "
                    f"and written further apart than {FAIR_COMPACTION:.0%}: the two did unlike work, the row says "
                    f"UNFAIR and a goal fails." + (f" Goal from the issue: <= {goal:.2f}x." if issue_goal else ""))


def compaction_rows(runs) -> tuple[int, ...]:
    """The medians over runs (each a list of batches) of the rows compaction read, wrote and moved in all their
    batches."""
    totals = [[sum(b[k] for b in batches) for k in ("read", "written", "moved")] for batches in runs]
    return tuple(int(statistics.median(column)) for column in zip(*totals))
