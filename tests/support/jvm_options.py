"""The JVM options of every Spark JVM the suites start, so that they start faster.

The suites start many JVMs: each test module's session, the workers other processes run, the writers
the kill tests kill, spark-submit and pyspark launches, the Connect server, cluster daemons and
executors. Each does little work, so what it costs is mostly its start: loading and verifying about
20,000 classes from jars, and compiling with both JIT tiers on a 2-core machine. Measured here:
- a class-data-sharing archive (AppCDS) of the classes a driver with the engine loads cut a driver
  that creates, writes and reads a table from 16 s to 10 s;
- the client compiler alone with the serial collector (`-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`)
  cut the tests that start other processes by a further 20-30% (the two-writer tests from 65 s to
  44 s): a JVM that lives for seconds does not earn back what the optimizing compiler costs on 2
  cores. The suite's own driver, which lives for the whole run, keeps it (`own_driver`).

The archive is made once per Java and Spark installation, under `.cache/jvm/`, by a short job run with
`-XX:ArchiveClassesAtExit`. A JVM whose Java or class path does not match an archive ignores it (the
default `-Xshare:auto`), and `-Xlog:cds=off` keeps it from saying so on stdout, so a stale or missing
archive costs time, never a result."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from deploy_util import REPO, SPARK_HOME

ARCHIVE_DIR = REPO / ".cache" / "jvm"
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
_FAST_START = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
_SHORT = "PAIMON_SPARK_TESTS_JVM_OPTIONS"
_LONG = "PAIMON_SPARK_TESTS_SUITE_JVM_OPTIONS"
_suite_process = False

# What the archive is made from: a session with the engine that runs the statements most tests run.
_WORKLOAD = """
import sys
from pyspark.sql import SparkSession
from paimon_spark import configure_spark_with_paimon
builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
spark = configure_spark_with_paimon(builder, warehouse=sys.argv[1]).getOrCreate()
for statement in [
    "CREATE TABLE paimon.default.pk (id INT, v STRING, p INT) PARTITIONED BY (p) "
    "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2', 'changelog-producer' = 'lookup')",
    "INSERT INTO paimon.default.pk VALUES (1, 'a', 1), (2, 'b', 2)",
    "INSERT INTO paimon.default.pk VALUES (1, 'c', 1)",
    "CREATE TABLE paimon.default.log (id INT, v STRING)",
    "INSERT INTO paimon.default.log SELECT id, v FROM paimon.default.pk",
    "UPDATE paimon.default.pk SET v = 'd' WHERE id = 2",
    "MERGE INTO paimon.default.log t USING paimon.default.pk s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
    "DELETE FROM paimon.default.log WHERE id = 1",
    "CALL paimon.sys.compact(table => 'default.pk')",
    "CALL paimon.sys.create_tag(table => 'default.pk', tag => 't1')",
    "SELECT * FROM paimon.default.pk VERSION AS OF 1",
    "SELECT * FROM paimon.default.`pk$audit_log`",
    "SELECT * FROM paimon.default.`pk$snapshots`",
    "SELECT p, count(*) FROM paimon.default.pk GROUP BY p ORDER BY p",
]:
    spark.sql(statement).collect()
spark.stop()
"""


def use_in_every_jvm() -> None:
    """Called by the pytest process (conftest's pytest_configure): gives the short-lived options to the
    drivers (SPARK_SUBMIT_OPTS) and standalone daemons (SPARK_DAEMON_JAVA_OPTS) its children start;
    executors take them from `executor_conf()`, the process's own driver the long-lived ones from
    `own_driver()`. The children inherit them with the environment."""
    global _suite_process
    _suite_process = True
    if _SHORT in os.environ:
        return
    archive = ARCHIVE_DIR / f"spark-{_installation_key()}.jsa"
    if not archive.is_file():
        _dump(archive)
    shared = f"-XX:SharedArchiveFile={archive} {_QUIET}" if archive.is_file() else ""
    os.environ[_LONG] = shared
    os.environ[_SHORT] = f"{_FAST_START} {shared}".strip()
    for variable in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
        os.environ[variable] = f"{os.environ.get(variable, '')} {os.environ[_SHORT]}".strip()


def in_suite_process() -> bool:
    """True in the pytest process itself, false in the workers and scripts it starts."""
    return _suite_process


@contextmanager
def own_driver() -> Iterator[None]:
    """Around the start of this process's driver: the suite's own, which runs every module's queries for
    the whole run, keeps the optimizing compiler and the default collector (with the client compiler
    alone, the modules that query most in it took 25-40% longer); a worker's is short-lived like the
    others."""
    if not _suite_process:
        yield
        return
    children = os.environ["SPARK_SUBMIT_OPTS"]
    os.environ["SPARK_SUBMIT_OPTS"] = children.replace(os.environ[_SHORT], os.environ[_LONG])
    try:
        yield
    finally:
        os.environ["SPARK_SUBMIT_OPTS"] = children


def executor_conf() -> dict[str, str]:
    """The Spark conf giving executors in their own JVMs (local-cluster) the short-lived options."""
    return {"spark.executor.extraJavaOptions": os.environ[_SHORT]} if os.environ.get(_SHORT) else {}


def _java() -> Path:
    """The java spark-class runs: $JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else shutil.which("java")
    return Path(found).resolve()


def _installation_key() -> str:
    digest = hashlib.sha256()
    for path in [_java(), *sorted((SPARK_HOME / "jars").iterdir())]:
        stat = path.stat()
        digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _dump(archive: Path) -> None:
    ARCHIVE_DIR.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    print(f"\nmaking the JVM class archive {archive.name} (once per Java and Spark installation)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as warehouse:
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1",
                   SPARK_SUBMIT_OPTS=f"-XX:ArchiveClassesAtExit={partial} {_QUIET}")
        done = subprocess.run([sys.executable, "-c", _WORKLOAD, warehouse], env=env, cwd=warehouse,
                              capture_output=True, text=True, timeout=600)
    if done.returncode == 0 and partial.is_file():
        partial.replace(archive)  # atomic: a concurrent run sees no archive or a whole one
    else:
        partial.unlink(missing_ok=True)
        warnings.warn(f"no JVM class archive, drivers start slower: {done.stderr[-2000:]}")
