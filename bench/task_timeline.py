"""Where the wall time of timed Spark actions goes, from Spark's event log: how long both cores of
local[2] ran tasks, how long one of them sat idle (a stage's last tasks, a lone task), and how long
no task ran at all (the driver planning, committing, starting jobs). The CPU bound of a ratio
(CPU-s over cores) assumes every core busy all the time; this says how far from that a write is, and
in which jobs.

Spark writes the log when the session is started with `conf(directory)`; `read(directory)` parses it
after the session stopped (Spark buffers task events and writes all of them by the time it stops).
Compaction jobs are told apart by the description our engine gives them ("paimon compact ...").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

CORES = 2  # local[2]


def conf(directory: Path) -> dict[str, str]:
    """Spark options that log every job, stage and task into `directory`, uncompressed."""
    directory.mkdir(parents=True, exist_ok=True)
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": str(directory),
            "spark.eventLog.compress": "false"}


@dataclass
class Task:
    start: float
    end: float
    job: str  # the job's description, e.g. "paimon compact ...", or "" for the write's own jobs


@dataclass
class Timeline:
    tasks: list[Task]

    def split(self, start: float, end: float) -> "WallSplit":
        """The wall time from `start` to `end` (epoch seconds) by how many tasks ran, and which jobs
        the lone tasks belonged to."""
        inside = [t for t in self.tasks if t.end > start and t.start < end]
        edges = sorted([(max(t.start, start), 1, t) for t in inside] + [(min(t.end, end), -1, t) for t in inside],
                       key=lambda e: (e[0], e[1]))
        split, running, last = WallSplit(), [], start
        for at, step, task in edges:
            split.add(len(running), running, at - last)
            if step > 0:
                running.append(task)
            else:
                running.remove(task)
            last = at
        split.add(0, [], end - last)
        return split


@dataclass
class WallSplit:
    none: float = 0.0  # no task running: the driver alone
    one: float = 0.0  # one core idle
    both: float = 0.0
    lone_by_job: dict[str, float] = field(default_factory=dict)  # `one`, by the lone task's job

    def add(self, running: int, tasks: list[Task], seconds: float) -> None:
        if seconds <= 0:
            return
        if running == 0:
            self.none += seconds
        elif running == 1:
            self.one += seconds
            kind = "compaction" if tasks[0].job.startswith("paimon compact") else "write"
            self.lone_by_job[kind] = self.lone_by_job.get(kind, 0.0) + seconds
        else:
            self.both += seconds

    def __iadd__(self, other: "WallSplit") -> "WallSplit":
        self.none, self.one, self.both = self.none + other.none, self.one + other.one, self.both + other.both
        for kind, seconds in other.lone_by_job.items():
            self.lone_by_job[kind] = self.lone_by_job.get(kind, 0.0) + seconds
        return self

    @property
    def idle_core_seconds(self) -> float:
        return CORES * self.none + (CORES - 1) * self.one


def read(directory: Path) -> Timeline:
    """Every finished task of the application logged in `directory` (one application per session)."""
    logs = [p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".") and "appstatus" not in p.name]
    job_of_stage, description, tasks = {}, {}, []
    for line in (line for log in sorted(logs) for line in log.open()):
        event = json.loads(line)
        kind = event["Event"]
        if kind == "SparkListenerJobStart":
            description[event["Job ID"]] = event.get("Properties", {}).get("spark.job.description") or ""
            for stage in event["Stage IDs"]:
                job_of_stage[stage] = event["Job ID"]
        elif kind == "SparkListenerTaskEnd":
            info = event["Task Info"]
            job = description.get(job_of_stage.get(event["Stage ID"]), "")
            tasks.append(Task(info["Launch Time"] / 1e3, info["Finish Time"] / 1e3, job))
    return Timeline(tasks)
