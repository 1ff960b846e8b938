"""What the deployment suites share: the repository, Spark's scripts, the published coordinates and
running Spark's command-line tools as child processes on loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import pyspark
import pytest

from paimon_spark import __version__

REPO = Path(__file__).resolve().parent.parent.parent
SPARK_HOME = Path(pyspark.__file__).resolve().parent
DOCKER_BIN = REPO / "docker" / "bin"
CLUSTER_JOB = REPO / "docker" / "jobs" / "cluster_job.py"
GROUP, ARTIFACT = "io.github.paimonspark", "paimon-spark_2.13"
COORDINATES = f"{GROUP}:{ARTIFACT}:{__version__}"
# Where `make test` publishes the engine (sbt's engine/publish), as `make publish-local` does to ~/.m2.
MAVEN_REPOSITORY = REPO / "target" / "maven-repository"
# Ivy settings with one resolver: Spark's Ivy then looks nowhere else (not in ~/.m2, not on the network).
_IVY_SETTINGS = """<ivysettings>
  <settings defaultResolver="only"/>
  <resolvers>{resolver}</resolvers>
</ivysettings>
"""


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_group(proc: subprocess.Popen, what: str) -> str:
    """SIGKILLs a child started with `start_new_session=True` and its whole process group (a Python script's
    JVM is its child), reaps it and waits until no process of the group is left; returns what it printed to
    a pipe, if anything."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    out = proc.communicate(timeout=60)[0] or ""
    deadline = time.time() + 30
    while subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True).returncode == 0:
        assert time.time() < deadline, f"the killed {what}'s JVM is still running"
        time.sleep(0.1)
    return out


def published_pom() -> Path:
    """The engine's POM in the checkout's Maven repository, where `make test` publishes it."""
    pom = MAVEN_REPOSITORY / Path(*GROUP.split(".")) / ARTIFACT / __version__ / f"{ARTIFACT}-{__version__}.pom"
    if not pom.is_file():
        pytest.fail(f"{COORDINATES} is not in the checkout's Maven repository ({pom}): run `build/sbt engine/publish`")
    return pom


def resolved_jars(tmp_path: Path) -> list[str]:
    """The jars a `--packages` resolution into `ivy_conf(tmp_path)`'s folder fetched."""
    return sorted(p.name for p in (tmp_path / "ivy" / "jars").glob("*.jar"))


def ivy_conf(tmp_path: Path, ivy_cache: Optional[Path] = None) -> dict[str, str]:
    """Spark settings that resolve `--packages` into a fresh Ivy folder of the test's own, from one place
    only: the checkout's Maven repository (the engine, as ~/.m2 serves `make publish-local`'s), or with
    `ivy_cache`, the Ivy cache of a resolved jar set (as Maven Central would serve it). No test resolves
    from the network or into a cache another process uses."""
    if ivy_cache is None:
        resolver = f'<ibiblio name="only" m2compatible="true" root="{MAVEN_REPOSITORY.as_uri()}"/>'
    else:
        resolver = (f'<filesystem name="only"><ivy pattern="{ivy_cache}/[organisation]/[module]/ivy-[revision].xml"/>'
                    f'<artifact pattern="{ivy_cache}/[organisation]/[module]/[type]s/[artifact]-[revision]'
                    '(-[classifier]).[ext]"/></filesystem>')
    settings = tmp_path / "ivysettings.xml"
    settings.write_text(_IVY_SETTINGS.format(resolver=resolver))
    return {"spark.jars.ivy": str(tmp_path / "ivy"), "spark.jars.ivySettings": str(settings)}


def conf_flags(conf: dict[str, str]) -> list[str]:
    """Spark settings as spark-submit's `--conf key=value` flags."""
    return [flag for key, value in conf.items() for flag in ("--conf", f"{key}={value}")]


def catalog_conf(warehouse: Path) -> list[str]:
    """spark-submit flags registering the `paimon` catalog over `warehouse`."""
    return ["--conf", "spark.sql.catalog.paimon=paimonspark.spark.PaimonCatalog",
            "--conf", f"spark.sql.catalog.paimon.warehouse={warehouse}"]


def spark_env(**extra: str) -> dict[str, str]:
    """The environment of a Spark child process: this interpreter for Python, loopback only."""
    return dict(os.environ, SPARK_HOME=str(SPARK_HOME), SPARK_LOCAL_IP="127.0.0.1", PYTHON=sys.executable,
                PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, **extra)


def run_tool(command: Sequence[str], env: dict[str, str], cwd: Path, timeout: float = 300,
             stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    """Runs a Spark tool to completion; a failure shows the end of what it printed."""
    done = subprocess.run(list(map(str, command)), env=env, cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command[0]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-5000:]}"
    return done


def job_result(stdout: str) -> dict:
    """The `RESULT <json>` line a job prints."""
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, stdout[-3000:]
    return json.loads(lines[0][len("RESULT "):])
