"""CPU profiles of a JVM for `make profile`, by async-profiler (tools.profiler:async-profiler, a test
dependency of the engine that sbt resolves with Paimon's Java core; its jar carries the native agent).

It samples CPU time (perf events, or the process's CPU timer where those are closed) on every thread,
the garbage collector's, the JIT compilers' and native code's (zstd, the kernel's) included, with
whole stacks, where Java Flight Recorder sampled Java threads only and cost the merge-on-read scans
more than twice their CPU (8.0 CPU-s per scan recorded, 3.5 not). Profiles are written as collapsed
stacks, one line each.
"""

from __future__ import annotations

import platform
import zipfile
from collections.abc import Iterator
from pathlib import Path

# Of CPU time: about 2,000 samples per 10 CPU-seconds.
INTERVAL = "5ms"
# How the sampler starts, in order: CPU time from perf events, or from the process's CPU timer where
# perf events are closed to it. JavaIngest gets the same commands (java_options).
STARTS = tuple(f"start,event={event},interval={INTERVAL}" for event in ("cpu", "itimer"))


def jar(classpath: str) -> str:
    """The async-profiler jar on the engine's test classpath (java_writer.java_classpath)."""
    found = [entry for entry in classpath.split(":") if "/async-profiler-" in entry and entry.endswith(".jar")]
    if not found:
        raise SystemExit("async-profiler is not on the engine's test classpath (build.sbt)")
    return found[0]


def library(classpath: str, into: Path) -> Path:
    """The native agent for this machine, taken out of the jar into `into`."""
    arch = {"x86_64": "linux-x64", "amd64": "linux-x64", "aarch64": "linux-arm64"}.get(platform.machine().lower())
    if platform.system() != "Linux" or arch is None:
        raise SystemExit(f"make profile runs on Linux x64 or arm64, not {platform.system()} {platform.machine()}")
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(jar(classpath)) as archive:
        target = into / "libasyncProfiler.so"
        target.write_bytes(archive.read(f"{arch}/libasyncProfiler.so"))
    return target


def java_options(out: Path, agent: Path) -> list[str]:
    """Options of a JavaIngest JVM (bench/java_writer.py) that sample its timed batches into `out` with
    `agent`, as Profiler samples the Spark JVM."""
    return [f"-Dpaimonspark.bench.profile={out}", f"-Dpaimonspark.bench.profiler={agent}",
            f"-Dpaimonspark.bench.profilerStarts={'|'.join(STARTS)}"]


class Profiler:
    """The sampler of the Spark JVM `spark`, whose driver class path holds the jar."""

    def __init__(self, spark, agent: Path):
        self._profiler = spark.sparkContext._jvm.one.profiler.AsyncProfiler.getInstance(str(agent))

    def start(self) -> None:
        from py4j.protocol import Py4JJavaError

        for command in STARTS:
            try:
                self._profiler.execute(command)
                return
            except Py4JJavaError:
                continue  # perf events closed to this process: the CPU timer instead
        raise SystemExit("async-profiler could not start on this machine")

    def stop(self, out: Path) -> None:
        self._profiler.execute(f"stop,file={out},collapsed")


def stacks(profile: Path) -> Iterator[tuple[list[str], int]]:
    """Each stack of a collapsed profile, innermost frame first (dotted class names), and its samples."""
    with profile.open() as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if stack:
                yield [frame.replace("/", ".") for frame in reversed(stack.split(";"))], int(count)
