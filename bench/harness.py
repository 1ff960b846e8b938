"""Shared benchmark plumbing: timing, machine facts, and writing results as Markdown, JSON and a plot.

A workload module measures a candidate system (paimon) against a baseline (plain Parquet, or
another configuration of paimon) and returns Comparison records, plus Check records for goals that
are not throughput ratios; everything here is independent of what was measured.
"""

from __future__ import annotations

import datetime
import gc
import json
import os
import platform
import shutil
import statistics
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import unquote, urlparse


@dataclass
class Comparison:
    """One workload timed on a baseline and a candidate over the same rows."""

    workload: str
    rows: int
    baseline: str
    candidate: str
    baseline_seconds: list[float] = field(default_factory=list)
    candidate_seconds: list[float] = field(default_factory=list)
    # The candidate must reach this fraction of the baseline's throughput; None: reported, no goal.
    goal: Optional[float] = 0.9
    description: str = ""  # what the row measures and why its goal is what it is, for the report
    unit: str = "rows"  # what `rows` counts: rows, or operations for latency rows

    def rows_per_s(self, seconds: list[float]) -> float:
        # The median ignores a single outlier run (a GC pause, a page-cache miss) in either direction.
        return self.rows / statistics.median(seconds)

    @property
    def ratio(self) -> float:
        return self.rows_per_s(self.candidate_seconds) / self.rows_per_s(self.baseline_seconds)

    @property
    def passed(self) -> bool:
        return self.goal is None or self.ratio >= self.goal

    @property
    def goal_text(self) -> str:
        return "none" if self.goal is None else f">= {self.goal:.2f}x"

    @property
    def result_text(self) -> str:
        return "reported" if self.goal is None else "pass" if self.passed else "FAIL"

    def summary(self) -> dict:
        return {**asdict(self), "baseline_rows_per_s": self.rows_per_s(self.baseline_seconds),
                "candidate_rows_per_s": self.rows_per_s(self.candidate_seconds),
                "ratio": self.ratio, "passed": self.passed}


@dataclass
class Check:
    """A goal that is not a throughput ratio, e.g. how many files a query opens."""

    name: str
    measured: str
    goal: str
    passed: bool
    description: str = ""


def warehouse_dir(spark) -> Path:
    """The local directory of the session's `paimon` catalog warehouse."""
    return Path(unquote(urlparse(spark.conf.get("spark.sql.catalog.paimon.warehouse")).path))


def timed(spark, action) -> float:
    """Wall-clock seconds of action(); JVM and Python garbage is collected first, outside the timing,
    so one run's leftovers are not charged to the next."""
    _collect_garbage(spark)
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def timed_with_cpu(spark, action, *threads: tuple[str, ...], collect_garbage: bool = True) -> tuple[float, ...]:
    """Wall-clock seconds of action(), as `timed`, and the CPU seconds the Spark JVM spent meanwhile
    (user and system, all threads; Linux only). In local mode that JVM does all the work, so CPU
    seconds over cores is the shortest wall time any scheduling of the same work could reach. Then, for
    each of `threads` (JIT_THREADS, GC_THREADS), what the JVM's threads so named spent of that CPU.
    Without `collect_garbage` no collection runs first (a full one costs about 0.7 s of a 6 GB heap):
    for actions timed by the thousand, whose medians leave out those a collection fell in."""
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    if collect_garbage:
        _collect_garbage(spark)
    threads_before = [_threads_cpu_seconds(pid, names) for names in threads]
    cpu_before, start = _process_cpu_seconds(pid), time.perf_counter()
    action()
    wall, cpu = time.perf_counter() - start, _process_cpu_seconds(pid) - cpu_before
    return wall, cpu, *(_threads_cpu_seconds(pid, names) - b for names, b in zip(threads, threads_before))


# Every JVM of the bench, the Spark JVM and Paimon's Java ones, has its heap fixed at full size (-Xms =
# -Xmx) and touched before work starts. Untouched, a 6 GiB heap's pages are first touched inside the
# timed runs, 1.5 M page faults of a page the kernel zeroes each: the merge-on-read scans of a fresh
# session cost 2.4-5.0 CPU-s until then, 2.2-2.4 after, and Java's reader, a new JVM per run, paid it
# inside its timed scans (the compacted scan 2.5-2.9 CPU-s untouched, 1.9-2.2 touched; 2026-12-04).
# Touching the heap costs each JVM about 5 s of start-up.
PRETOUCH = "-XX:+AlwaysPreTouch"


def java_heap(heap: str) -> list[str]:
    """The options of a Java JVM the bench starts beside the Spark JVM: the Spark JVM's heap `heap`
    (spark.driver.memory), fixed at its size and touched at start as run.start_spark does for that one
    (where Spark sets -Xmx itself)."""
    return [f"-Xms{heap}", f"-Xmx{heap}", PRETOUCH]


# The GC logs of the benches' JVMs (-Xlog:gc), kept after a run deletes bench/work; git-ignored.
GC_LOGS = Path(__file__).resolve().parent / "logs"
# Threads by the names Linux gives them (15 characters at most): HotSpot's JIT compilers, and G1's
# (its parallel "GC Thread#n" workers and its "G1 Conc#n", "G1 Refine#n", "G1 Main Marker" and "G1 Service").
# JavaIngest (bench/java_writer.py) reads the same of its JVM, so both sides are compared with and without them.
JIT_THREADS = ("C1 CompilerThre", "C2 CompilerThre")
GC_THREADS = ("GC Thread", "G1 ")


def _threads_cpu_seconds(pid: int, names: tuple[str, ...]) -> float:
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().startswith(names):
                total += _cpu_seconds(task / "stat")
        except (FileNotFoundError, ProcessLookupError):  # a thread that ended meanwhile (compiler threads come and go)
            pass
    return total


def _collect_garbage(spark) -> None:
    gc.collect()
    spark.sparkContext._jvm.System.gc()


def _process_cpu_seconds(pid: int) -> float:
    return _cpu_seconds(Path(f"/proc/{pid}/stat"))


def _cpu_seconds(stat: Path) -> float:
    # Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name) are utime and
    # stime in clock ticks.
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def columns_sql(df) -> str:
    """The columns of DataFrame `df` as CREATE TABLE lists them: `name type, ...`."""
    return ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in df.schema.fields)


def copy_table(spark, source: str, target: str) -> None:
    """Copies table `source` of the `paimon` catalog's default database to `target`, replacing any
    table there. A Paimon table's files name each other relative to its directory, so the copy is the
    same table under a new name."""
    db = warehouse_dir(spark) / "default.db"
    shutil.rmtree(db / target, ignore_errors=True)
    shutil.copytree(db / source, db / target)


def machine_info(spark, extra: dict | None = None) -> dict:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    jvm = spark.sparkContext._jvm
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"), "cores": os.cpu_count(), "cpu": cpu,
            "spark_master": spark.sparkContext.master, "spark": spark.version,
            "java": jvm.System.getProperty("java.version"),
            "driver_heap_gib": round(jvm.Runtime.getRuntime().maxMemory() / 2**30, 1),
            "python": platform.python_version(), "os": platform.platform(),
            # Taken as the workload ends: the 15-minute figure spans most runs. Above the bench's own
            # parallelism (the 2 threads of local[2]), something else shared the machine.
            "load_avg_1_5_15_min": [round(x, 2) for x in os.getloadavg()], **(extra or {})}


def write_results(out_dir: Path, name: str, title: str, results: list[Comparison], info: dict,
                  checks: list[Check] = (), draw: Optional[Callable[[Path], None]] = None) -> list[Path]:
    """Writes <name>.json, <name>.md and <name>.png into out_dir and returns their paths. The plot is
    the results' bars, or what `draw` draws into the path it is given (a workload's own figure)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path, png_path = (out_dir / f"{name}.{ext}" for ext in ("json", "md", "png"))
    report = {"benchmark": name, "title": title, "machine": info, "results": [r.summary() for r in results]}
    if checks:
        report["checks"] = [asdict(c) for c in checks]
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    lines = [f"# {title}", ""]
    if _same_systems(results):
        lines += ["| workload | {u} | {b} {u}/s | {c} {u}/s | ratio {c}/{b} | goal | result |".format(
                      b=results[0].baseline, c=results[0].candidate, u=results[0].unit),
                  "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in results:
            lines.append(f"| {r.workload} | {r.rows:,} | {r.rows_per_s(r.baseline_seconds):,.0f} | "
                         f"{r.rows_per_s(r.candidate_seconds):,.0f} | {r.ratio:.2f}x | {r.goal_text} | {r.result_text} |")
    else:
        # Rows compare different pairs of systems: each row names its own.
        u = results[0].unit
        lines += [f"| workload | {u} | baseline | baseline {u}/s | candidate | candidate {u}/s | "
                  "ratio candidate/baseline | goal | result |",
                  "| --- | ---: | --- | ---: | --- | ---: | ---: | ---: | --- |"]
        for r in results:
            lines.append(f"| {r.workload} | {r.rows:,} | {r.baseline} | {r.rows_per_s(r.baseline_seconds):,.0f} | "
                         f"{r.candidate} | {r.rows_per_s(r.candidate_seconds):,.0f} | {r.ratio:.2f}x | "
                         f"{r.goal_text} | {r.result_text} |")
    runs = sorted({len(r.baseline_seconds) for r in results} | {len(r.candidate_seconds) for r in results})
    lines += ["", f"Median of {runs[0] if len(runs) == 1 else f'{runs[0]} to {runs[-1]}'} runs each, order "
              "alternated between runs. "
              f"Raw seconds are in `{json_path.name}`."]
    if any(r.description for r in results):
        lines += ["", "## What each row measures", ""]
        lines += [f"- **{r.workload}**: {r.description}" for r in results if r.description]
    if checks:
        lines += ["", "## Other goals", "", "| check | measured | goal | result |", "| --- | --- | --- | --- |"]
        lines += [f"| {c.name} | {c.measured} | {c.goal} | {'pass' if c.passed else 'FAIL'} |" for c in checks]
        lines += [""] + [f"- **{c.name}**: {c.description}" for c in checks if c.description]
    lines += ["", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    md_path.write_text("\n".join(lines) + "\n")
    (draw or (lambda path: plot(path, title, results)))(png_path)
    return [md_path, json_path, png_path]


def _same_systems(results: list[Comparison]) -> bool:
    return len({(r.baseline, r.candidate) for r in results}) == 1


def plot(path: Path, title: str, results: list[Comparison]) -> None:
    import matplotlib
    matplotlib.use("Agg")  # no display: render straight to a file
    import matplotlib.pyplot as plt

    width, xs = 0.38, range(len(results))
    same = _same_systems(results)
    fig, ax = plt.subplots(figsize=(1.5 + 2.2 * len(results) * (1 if same else 1.4), 4.2 if same else 4.8))
    for offset, side, color in ((-width / 2, "baseline", "#8c8c8c"), (width / 2, "candidate", "#2b7bba")):
        scale = 1e6 if results[0].unit == "rows" else 1
        values = [r.rows_per_s(getattr(r, f"{side}_seconds")) / scale for r in results]
        bars = ax.bar([x + offset for x in xs], values, width, label=getattr(results[0], side) if same else side,
                      color=color)
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    # With a different pair of systems per row, each tick names its pair.
    ax.set_xticks(list(xs), [f"{r.workload}\n{r.ratio:.2f}x" if same else
                             f"{r.workload}\n{r.candidate}\nvs {r.baseline}\n{r.ratio:.2f}x (goal {r.goal_text})"
                             for r in results], fontsize=None if same else 8)
    ax.set_ylabel(f"million {results[0].unit} / s (higher is better)" if results[0].unit == "rows"
                  else f"{results[0].unit} / s (higher is better)")
    ax.set_title("\n".join(textwrap.wrap(title, 55)), fontsize=10)  # a one-bar plot is narrow
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
