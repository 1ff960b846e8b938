"""Metadata scaling: commits and point queries as a table's history grows to 10,000 small commits with
Paimon's default options, a streaming-shaped workload (issue 56), and to 1,000 with expiry off.

Each commit is an INSERT of two rows into one of four partitions, in turn, of an append table that
keeps its defaults: small files compacted after writes, snapshots expired after each commit keeping an
hour, which here keeps every one (10,000 and the compactions' own). What keeps commits and plans flat
is what a snapshot references: each commit merges its base manifests as Paimon does (minor merges from
`manifest.merge-min-count` 30, full compactions past `manifest.full-compaction-threshold-size` 16 mb,
manifests of `manifest.target-file-size` 8 mb), and expiry finds the earliest snapshot by its hint.

The curve: every commit's wall and CPU seconds (no garbage collection before each; means over windows
of whole compaction cycles, see CYCLE), and at each level the point query's planning and running, timed
apart and alternated, and the metadata on disk. Planning is the SQL text to the RDD Spark would run (`queryExecution().toRdd()`:
parsing, analysis, optimization, our scan planning over snapshot, manifests and files, physical
planning), so Spark's constant share is in it; running is collecting that same DataFrame. Read through
py4j, it needs no helper in the JVM, and it is what a query waits for before its first task.

The goals compare the table at 10,000 commits with a fresh one (its commits 9 to 32, from its first
compactions on), their commits, plans and queries alternated, so that the machine's load weighs on both
alike. A row's 'rows' are operations: its ratio
is the throughput at 10,000 over that at 10, and 0.5 means at most twice as slow. With expiry off
(`write-only`) the same at 1,000, its first 1,000 commits alternated with the default table's.
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import SparkSession

from harness import Check, Comparison, timed_with_cpu, warehouse_dir

NAME = "metadata_scaling"
TITLE = "History metadata: 10,000 small commits against a fresh table (default options), 1,000 with expiry off"
LEVELS = (10, 100, 1000, 3000, 10000)
QUICK_LEVELS = (10, 30, 100)  # --quick: a smoke run of the same code
EXPIRY_OFF_MAX = 1000  # expiry off stays at 1,000 commits: beyond, it only adds minutes
CONFIGS = {
    # Paimon's defaults: expiry after every commit keeps an hour of snapshots (all of them here).
    "default options": {},
    # Paimon's way to turn table maintenance off: no expiry (and no inline compaction) after commits.
    "expiry off": {"write-only": "true"},
}
# Every INSERT writes two files (one per task of local[2]) into one of four partitions, and a partition
# is compacted once it holds five small files: from the 9th commit on, cycles of 8 commits, 4 of them
# followed by a compaction that doubles their time. A commit figure is the mean of one cycle, so that it
# holds the same share of compactions wherever it falls; the median of CYCLES such means is reported.
CYCLE = 8
CYCLES = 3
# What the latest snapshot references rises and falls as small manifests pile up and are merged (every
# merge-min-count, 30, commits): its most over the last two cycles up to a level is the level's figure.
REFERENCE_WINDOW = 60
PLANS = 5  # plan-and-run pairs per level at least (more with --repeats)
SYSTEM_TABLE_RUNS = 3  # $snapshots and $files list 15,000 snapshots at 10,000 commits: fewer runs
GOALS = {
    "commit": (0.5, "an INSERT of two rows, written, committed, compacted and expired, the mean over a cycle of 8 "
                    "(4 followed by a compaction); goal: at most 2x slower"),
    "point query planning": (0.5, "from the SQL text to the RDD to run; goal: at most 2x slower"),
    "point query": (0.5, "planning and running a point query that finds one row; goal: at most 2x slower"),
    "$snapshots": (None, "lists every retained snapshot, so it grows with them: reported, no goal"),
    "$files": (None, "lists every live file (with expiry off, nothing compacts them): reported, no goal"),
}


@dataclass
class History:
    """A table that grows one INSERT at a time, with the wall and CPU seconds of each."""

    spark: SparkSession
    table: str
    commits: int = 0
    timings: list[tuple[float, float]] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)  # the 1-minute load average after each commit
    references: list[tuple[int, int]] = field(default_factory=list)  # manifests and bytes, after some commits

    def commit(self) -> None:
        self.commits += 1
        n = self.commits
        self.timings.append(timed_with_cpu(self.spark, lambda: self.spark.sql(
            f"INSERT INTO {self.table} VALUES ({n}, 'd{n % 4}', 'v{n}'), ({n + 100000}, 'd{n % 4}', 'w{n}')"),
            collect_garbage=False))
        self.loads.append(os.getloadavg()[0])

    def point_query(self, row: int | None = None, version: int | None = None) -> str:
        """A query for one row of partition d1: `row`, by default the latest commit's there; at `version` if given."""
        n = self.commits - (self.commits - 1) % 4 if row is None else row
        return f"SELECT * FROM {self.table}{'' if version is None else f' VERSION AS OF {version}'} " \
               f"WHERE day = 'd1' AND id = {n}"


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    levels = LEVELS if rows >= 10_000_000 else QUICK_LEVELS
    plans = max(repeats, PLANS)
    warm_up(spark)
    grown = {label: History(spark, create(spark, label.replace(" ", "_"), options)) for label, options in CONFIGS.items()}
    last = {"default options": levels[-1], "expiry off": min(levels[-1], EXPIRY_OFF_MAX)}
    curve: dict[str, dict[int, dict]] = {label: {} for label in CONFIGS}
    for n in range(1, levels[-1] + 1):
        for label, history in (grown.items() if n % 2 else reversed(grown.items())):
            if n <= last[label]:
                history.commit()
                if any(0 <= level - n < REFERENCE_WINDOW for level in levels):
                    history.references.append(references(spark, history.table))
        for label, history in grown.items():
            if n in levels and n <= last[label]:
                curve[label][n] = level_figures(spark, history, plans)
                print(f"   {label}, {n:,} commits: {summary(curve[label][n])}", flush=True)
    results, checks = [], []
    for label, history in grown.items():
        results += goals(spark, label, history, plans)
    # With expiry off nothing compacts the data files, so what a snapshot references grows with them.
    checks += metadata_checks("default options", curve["default options"])
    checks.append(expire_all(spark, grown["expiry off"].table))
    notes: dict = {"checks": checks, "plot": lambda path: plot(path, curve, grown)}
    for label, levels_seen in curve.items():
        for level, figures in levels_seen.items():
            notes[f"{label}, {level:,} commits"] = summary(figures)
        notes[f"{label}: mean ms per commit (wall / CPU) and load over log-spaced windows"] = [
            f"{a:,}-{b:,}: {w:.0f} / {c:.0f} ({load:.1f})" for a, b, w, c, load in windows(grown[label], max(curve[label]))]
    notes["samples"] = (f"commits: the means of {CYCLES} cycles of {CYCLE} per figure (one at 10 commits); planning "
                        f"and running: {plans} pairs per level; $snapshots and $files: {SYSTEM_TABLE_RUNS}")
    return results, notes


def create(spark: SparkSession, name: str, options: dict) -> str:
    table = f"paimon.default.history_{name}"
    props = ", ".join(f"'{k}'='{v}'" for k, v in options.items())
    spark.sql(f"CREATE TABLE {table} (id BIGINT, day STRING, v STRING) PARTITIONED BY (day)"
              + (f" TBLPROPERTIES ({props})" if props else ""))
    return table


def warm_up(spark: SparkSession) -> None:
    """Commits and queries on a scratch table first, so that the first level is not timed on a cold JVM."""
    scratch = History(spark, create(spark, "warm_up", {}))
    for _ in range(30):
        scratch.commit()
        spark.sql(scratch.point_query(1, version=scratch.commits)).collect()
        spark.sql(f"SELECT count(*) FROM {system(scratch.table, 'files')}").collect()


def level_figures(spark: SparkSession, history: History, plans: int) -> dict:
    """Commits up to the level, the point query's planning and running, and the metadata on disk."""
    timed = plan_and_run(spark, [history.point_query()], plans)[0]
    recent = history.references[-min(REFERENCE_WINDOW, history.commits):]
    return {"commit": cycle_means(history.timings[1:][-CYCLES * CYCLE:]), **timed, **disk_usage(spark, history.table),
            "most manifests the latest snapshot references": max(r[0] for r in recent),
            "most bytes the latest snapshot references": max(r[1] for r in recent),
            "load_avg_1_min": round(os.getloadavg()[0], 2)}


def plan_and_run(spark: SparkSession, queries: list[str], rounds: int) -> list[dict[str, list]]:
    """Each query planned and run `rounds` times, after one untimed round; the queries' order alternates."""
    timed = [{"planning": [], "running": []} for _ in queries]
    for r in range(rounds + 1):
        for i in (range(len(queries)) if r % 2 else reversed(range(len(queries)))):
            frame = spark.sql(queries[i])
            planning = timed_with_cpu(spark, lambda: frame._jdf.queryExecution().toRdd())
            running = timed_with_cpu(spark, frame.collect)
            if r:
                timed[i]["planning"].append(planning)
                timed[i]["running"].append(running)
    return timed


def table_root(spark: SparkSession, table: str) -> Path:
    return warehouse_dir(spark) / "default.db" / table.split(".")[-1]


def disk_usage(spark: SparkSession, table: str) -> dict:
    """Bytes under the table's snapshot/ and manifest/, and per retained snapshot."""
    root = table_root(spark, table)
    files = [f for d in ("snapshot", "manifest") for f in (root / d).iterdir()]
    retained = sum(1 for f in files if f.name.startswith("snapshot-"))
    total = sum(f.stat().st_size for f in files)
    return {"retained snapshots": retained, "metadata bytes": total, "bytes per retained snapshot": round(total / retained)}


def references(spark: SparkSession, table: str) -> tuple[int, int]:
    """The data manifests (base and delta) the latest snapshot names, and the bytes of those, their lists and
    the snapshot file, read with fastavro rather than our engine."""
    from fastavro import reader

    root = table_root(spark, table)
    snapshot = root / "snapshot" / f"snapshot-{(root / 'snapshot' / 'LATEST').read_text().strip()}"
    record = json.loads(snapshot.read_text())
    count, size = 0, snapshot.stat().st_size
    for key in ("baseManifestList", "deltaManifestList"):
        with open(root / "manifest" / record[key], "rb") as fh:
            manifests = list(reader(fh))
        count += len(manifests)
        size += record[f"{key}Size"] + sum(m["_FILE_SIZE"] for m in manifests)
    return count, size


def goals(spark: SparkSession, label: str, grown: History, plans: int) -> list[Comparison]:
    """The grown table against a fresh one at 10 commits, alternated: commits, planning, queries, system tables."""
    fresh = History(spark, create(spark, f"fresh_{label.replace(' ', '_')}", CONFIGS[label]))
    # The fresh table's alternated commits start with its first compactions, on its 9th commit.
    while fresh.commits < CYCLE:
        fresh.commit()
    for r in range(CYCLES * CYCLE):
        for history in (fresh, grown) if r % 2 else (grown, fresh):
            history.commit()
    base = f"{fresh.commits - CYCLES * CYCLE + 1}-{fresh.commits} commits (a fresh table)"
    cand = f"{grown.commits - CYCLES * CYCLE + 1:,}-{grown.commits:,} commits"
    measured = {"commit": (cycle_means(fresh.timings[-CYCLES * CYCLE:]), cycle_means(grown.timings[-CYCLES * CYCLE:]))}
    (f, g) = plan_and_run(spark, [fresh.point_query(), grown.point_query()], plans)
    measured["point query planning"] = (f["planning"], g["planning"])
    measured["point query"] = ([add(a, b) for a, b in zip(f["planning"], f["running"])],
                               [add(a, b) for a, b in zip(g["planning"], g["running"])])
    for kind in ("snapshots", "files"):
        measured[f"${kind}"] = alternated(spark, [f"SELECT count(*) FROM {system(h.table, kind)}" for h in (fresh, grown)])
    results = []
    for name, (a, b) in measured.items():
        goal, why = GOALS[name]
        base_at = base if name == "commit" else f"{fresh.commits} commits (a fresh table)"
        cand_at = cand if name == "commit" else f"{grown.commits:,} commits"
        results.append(Comparison(f"{name} ({label})", 1, base_at, cand_at, [t[0] for t in a], [t[0] for t in b],
                                  goal=goal, unit="ops", description=f"{name}, {label}: {why}; wall / CPU ms "
                                  f"{ms(a)} at {fresh.commits}, {ms(b)} at {grown.commits:,}"))
    # Back in time: the same point query on a snapshot half-way back against the latest.
    middle = grown.commits // 2
    version = spark.sql(f"SELECT min(snapshot_id) FROM {system(grown.table, 'snapshots')} "
                        f"WHERE commit_kind = 'APPEND' AND total_record_count >= {2 * middle}").first()[0]
    latest, back = plan_and_run(spark, [grown.point_query(1), grown.point_query(1, version)], plans)
    results.append(Comparison(f"time travel ({label})", 1, "latest snapshot", f"snapshot {version:,}",
                              [add(*t)[0] for t in zip(latest["planning"], latest["running"])],
                              [add(*t)[0] for t in zip(back["planning"], back["running"])], goal=1 / 1.2, unit="ops",
                              description=f"the point query at {grown.commits:,} commits, on the snapshot of commit "
                              f"{middle:,} against the latest; goal: at most 1.2x slower"))
    return results


def alternated(spark: SparkSession, queries: list[str]) -> list[list[tuple[float, float]]]:
    timed: list[list] = [[] for _ in queries]
    for r in range(SYSTEM_TABLE_RUNS + 1):
        for i in (range(len(queries)) if r % 2 else reversed(range(len(queries)))):
            timing = timed_with_cpu(spark, lambda: spark.sql(queries[i]).collect())
            if r:
                timed[i].append(timing)
    return timed


def metadata_checks(label: str, curve: dict[int, dict]) -> list[Check]:
    """What the latest snapshot references stays bounded, and the bytes per retained snapshot flat, over
    the last decade of levels."""
    top = max(curve)
    # Levels of two merge cycles at least: below, the latest snapshot has not yet reached its most.
    since = max((n for n in curve if REFERENCE_WINDOW <= n <= top // 10), default=top)
    first, last = curve[since], curve[top]
    at = f"{since:,} -> {top:,} commits"
    refs = [(f["most manifests the latest snapshot references"], f["most bytes the latest snapshot references"])
            for f in (first, last)]
    per = [f["bytes per retained snapshot"] for f in (first, last)]
    return [
        Check(f"metadata the latest snapshot references ({label})",
              f"{at}: {refs[0][0]} -> {refs[1][0]} manifests, {refs[0][1]:,} -> {refs[1][1]:,} bytes",
              "at most 1.5x", refs[1][0] <= 1.5 * refs[0][0] and refs[1][1] <= 1.5 * refs[0][1],
              f"the most, over the {REFERENCE_WINDOW} commits up to each level, of the data manifests (base and "
              "delta) the latest snapshot names and of the bytes of those, their lists and the snapshot file: small "
              "manifests pile up to merge-min-count and are merged, so both rise and fall but stay bounded"),
        Check(f"metadata bytes per retained snapshot ({label})",
              f"{at}: {per[0]:,} -> {per[1]:,} bytes ({last['retained snapshots']:,} snapshots, "
              f"{last['metadata bytes'] / 2**20:.1f} MiB under snapshot/ and manifest/)", "at most 1.5x",
              per[1] <= 1.5 * per[0], "every retained snapshot's own files: its JSON, lists and new manifests"),
    ]


def expire_all(spark: SparkSession, table: str) -> Check:
    """Expires every snapshot but the latest of the write-only table in one call."""
    latest = spark.sql(f"SELECT max(snapshot_id) FROM {system(table, 'snapshots')}").first()[0]
    future = (datetime.datetime.now() + datetime.timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S")
    result: list = []
    wall, cpu = timed_with_cpu(spark, lambda: result.extend(spark.sql(
        f"CALL paimon.sys.expire_snapshots(table => '{table.split('.', 1)[1]}', retain_max => 1, retain_min => 1, "
        f"older_than => '{future}', max_deletes => {latest})").collect()))
    expired = result[0][0]
    return Check(f"expire {latest:,} snapshots", f"{expired} snapshots in {wall:.2f} s ({cpu:.2f} CPU-s)", "< 10 s",
                 expired >= latest - 1 and wall < 10,
                 "one expire_snapshots call over the whole history of the write-only table")


def system(table: str, kind: str) -> str:
    catalog, db, name = table.split(".")
    return f"{catalog}.{db}.`{name}${kind}`"


def cycle_means(timings: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Mean wall and CPU seconds of each whole cycle of commits, counted back from the last."""
    whole = timings[len(timings) % CYCLE:] if len(timings) >= CYCLE else timings
    chunks = [whole[i:i + CYCLE] for i in range(0, len(whole), CYCLE)]
    return [(statistics.fmean(t[0] for t in c), statistics.fmean(t[1] for t in c)) for c in chunks]


def add(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return a[0] + b[0], a[1] + b[1]


def ms(timings: list[tuple[float, float]]) -> str:
    return f"{1000 * statistics.median(t[0] for t in timings):.0f} / {1000 * statistics.median(t[1] for t in timings):.0f}"


def summary(figures: dict) -> str:
    timed = ", ".join(f"{k} {ms(figures[k])}" for k in ("commit", "planning", "running"))
    return (f"wall / CPU ms: {timed}; {figures['retained snapshots']:,} snapshots, "
            f"{figures['bytes per retained snapshot']:,} bytes each; the latest references at most "
            f"{figures['most manifests the latest snapshot references']} manifests, "
            f"{figures['most bytes the latest snapshot references']:,} bytes; load {figures['load_avg_1_min']}")


def windows(history: History, last: int | None = None) -> list[tuple[int, int, float, float, float]]:
    """Mean wall and CPU ms of commits, and the mean load after them, in windows that widen with history: 12 a
    decade, of a cycle at least; up to commit `last`."""
    timings = history.timings[:last]
    edges = [1]
    while edges[-1] <= len(timings):
        edges.append(min(len(timings) + 1, max(edges[-1] + CYCLE, round(edges[-1] * 10 ** (1 / 12)))))
    out = []
    for a, b in zip(edges, edges[1:]):
        chunk = timings[a - 1:b - 1]
        out.append((a, b - 1, 1000 * statistics.fmean(t[0] for t in chunk), 1000 * statistics.fmean(t[1] for t in chunk),
                    statistics.fmean(history.loads[a - 1:b - 1])))
    return out


def plot(path: Path, curve: dict[str, dict[int, dict]], grown: dict[str, History]) -> None:
    import matplotlib
    matplotlib.use("Agg")  # no display: render straight to a file
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    colors = {"default options": "#2b7bba", "expiry off": "#e08a1e"}
    # The machine is shared: wall time rises with its load while CPU time does not.
    load = left.twinx()
    w = windows(grown["default options"], max(curve["default options"]))
    load.fill_between([(a + b) / 2 for a, b, *_ in w], [x[4] for x in w], color="#999999", alpha=0.15, linewidth=0)
    load.set(ylabel="load average, 1 min (shaded; 2 cores)", ylim=(0, max(4.0, 2.5 * max(x[4] for x in w))))
    left.set_zorder(load.get_zorder() + 1)
    left.patch.set_visible(False)
    for label, history in grown.items():
        c = colors[label]
        w = windows(history, max(curve[label]))
        xs = [(a + b) / 2 for a, b, *_ in w]
        left.plot(xs, [x[2] for x in w], color=c, label=f"commit, wall ({label})")
        left.plot(xs, [x[3] for x in w], color=c, linestyle=":", label=f"commit, CPU ({label})")
        levels = sorted(curve[label])
        for kind, marker in (("planning", "o"), ("running", "s")):
            left.plot(levels, [1000 * statistics.median(t[0] for t in curve[label][n][kind]) for n in levels],
                      color=c, marker=marker, linestyle="--", label=f"point query {kind}, wall ({label})")
        right.plot(levels, [curve[label][n]["bytes per retained snapshot"] / 1024 for n in levels], color=c,
                   marker="o", label=f"KiB per retained snapshot ({label})")
        right.plot(levels, [curve[label][n]["most bytes the latest snapshot references"] / 1024 for n in levels],
                   color=c, marker="s", linestyle="--", label=f"KiB the latest snapshot references, most ({label})")
    left.set(xscale="log", xlabel="commits", ylabel="ms (lower is better)",
             title="ms per commit (mean over windows) and per point query (median at levels)")
    right.set(xscale="log", xlabel="commits", ylabel="KiB", title="metadata on disk")
    for ax in (left, right):
        ax.set_ylim(bottom=0)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(TITLE, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
