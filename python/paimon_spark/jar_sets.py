"""Maven jars a session loads beside the engine, resolved once per machine into a folder of their own.

Spark resolves ``spark.jars.packages`` with Ivy every time a JVM starts, into one Ivy cache per user.
Two JVMs that start at once on a cold cache download into the same files, and one of them fails
(``Downloaded file size (0) doesn't match expected Content Length``). A :class:`JarSet` is resolved by
Spark's own Ivy once, by one process at a time (a file lock), into a private Ivy folder that appears
whole, by rename, only when the resolution succeeded; sessions then load its jars with ``spark.jars``
and never resolve them again.

The folder is ``$PAIMON_SPARK_JARS_DIR``, else ``$XDG_CACHE_HOME/paimon-spark/jars``, else
``~/.cache/paimon-spark/jars``; ``paimon-spark fetch-jars s3`` fills it ahead of time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from paimon_spark.errors import DependencyResolutionError

JARS_DIR_VARIABLE = "PAIMON_SPARK_JARS_DIR"
# Ivy's own lines that say why a resolution failed; the rest of its output is progress.
_CAUSE_MARKERS = ("unresolved dependency", "not found", "Exception", "Error", "error", "FAILED",
                  "doesn't match", "must be in the form", "Server access", "::")
_RESOLVE_TIMEOUT_S = 1800


@dataclass(frozen=True)
class JarSet:
    """Maven ``packages`` (``group:artifact:version``) with their dependencies, less ``excludes``
    (``group:artifact``), as ``--packages`` and ``--exclude-packages`` would resolve them; or jars with a
    classifier (``group:artifact:version:classifier``, such as a connector's self-contained ``shaded``
    jar), each alone."""

    name: str
    packages: Tuple[str, ...]
    excludes: Tuple[str, ...] = ()

    def folder(self, root: Optional[Path] = None) -> Path:
        """The Ivy folder this set is resolved into (its ``jars/`` holds the jars), named by its
        coordinates, so that a set that changes is resolved anew."""
        digest = hashlib.sha256("\n".join(self.packages + ("",) + self.excludes).encode()).hexdigest()[:12]
        return (root or jars_root()) / f"{self.name}-{digest}"

    def fetched(self, root: Optional[Path] = None) -> Optional[List[str]]:
        """The paths of the set's jars if it was resolved, else None."""
        jars = self.folder(root) / "jars"
        return sorted(str(j) for j in jars.glob("*.jar")) if jars.is_dir() else None

    def fetch(self, root: Optional[Path] = None) -> List[str]:
        """The paths of the set's jars, resolved first if they were not: by this process, or by
        another that holds the lock, which this one then waits for."""
        found = self.fetched(root)
        if found is not None:
            return found
        folder = self.folder(root)
        folder.parent.mkdir(parents=True, exist_ok=True)
        with _exclusive(folder.with_name(f".{folder.name}.lock")):
            found = self.fetched(root)
            if found is not None:
                return found
            print(f"paimon-spark: resolving the {self.name} jars once, into {folder}", file=sys.stderr)
            partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
            try:
                self._resolve(partial)
                try:
                    (partial / "ivy").rename(folder)
                except OSError:
                    if self.fetched(root) is None:  # not a process without the lock that got there first
                        raise
            finally:
                shutil.rmtree(partial, ignore_errors=True)
        return self.fetched(root) or []

    def _resolve(self, work: Path) -> None:
        """Resolves the set into ``work/ivy/jars``: with Spark's own Ivy (as ``--packages``), or, for a set of
        jars with classifiers, which ``--packages`` cannot name, with Ivy's command line (Ivy's jar is one of
        Spark's), each jar alone."""
        classified = any(len(p.split(":")) == 4 for p in self.packages)
        output, failed = (self._run(self._ivy_command(work), work) if classified
                          else self._run(self._spark_submit_command(work), work))
        if failed or not any((work / "ivy" / "jars").glob("*.jar")):
            raise DependencyResolutionError(
                f"could not resolve the {self.name} jars ({', '.join(self.packages)}) with Spark's Ivy: "
                f"{_cause(output)}. Nothing was kept; run `paimon-spark fetch-jars {self.name}` to try again "
                f"(docs/object-stores.md says how to bring the jars to a machine that cannot reach Maven "
                f"Central)", value=self.name)

    def _spark_submit_command(self, work: Path) -> List[str]:
        """spark-submit with the set as ``--packages`` and a job that does nothing: Spark resolves
        packages before it runs a job, into ``work/ivy``. The flags replace whatever packages
        spark-defaults.conf names; its repositories and Ivy settings (a mirror) still apply."""
        from pyspark.find_spark_home import _find_spark_home

        job = work / "nothing.py"
        job.write_text("")
        command = [os.path.join(_find_spark_home(), "bin", "spark-submit"),
                   "--conf", f"spark.jars.ivy={work / 'ivy'}", "--packages", ",".join(self.packages)]
        if self.excludes:
            command += ["--exclude-packages", ",".join(self.excludes)]
        return command + [str(job)]

    def _ivy_command(self, work: Path) -> List[str]:
        """Ivy's command line over a module that depends on each ``group:artifact:version:classifier`` jar
        alone, from Ivy's default repository (Maven Central), retrieved into ``work/ivy/jars``."""
        from pyspark.find_spark_home import _find_spark_home

        dependencies = []
        for package in self.packages:
            group, artifact, version, classifier = package.split(":")
            dependencies.append(
                f'<dependency org="{group}" name="{artifact}" rev="{version}" transitive="false">'
                f'<artifact name="{artifact}" type="jar" ext="jar" m:classifier="{classifier}"/></dependency>')
        module = work / "ivy.xml"
        module.write_text('<ivy-module version="2.0" xmlns:m="http://ant.apache.org/ivy/maven">'
                          '<info organisation="paimon-spark" module="jars"/>'
                          f'<dependencies>{"".join(dependencies)}</dependencies></ivy-module>')
        ivy = sorted(Path(_find_spark_home(), "jars").glob("ivy-*.jar"))
        java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
        return [java, "-cp", str(ivy[-1]) if ivy else "", "org.apache.ivy.Main", "-ivy", str(module),
                "-cache", str(work / "ivy" / "cache"), "-confs", "default",
                "-retrieve", str(work / "ivy" / "jars" / "[artifact]-[revision](-[classifier]).[ext]")]

    @staticmethod
    def _run(command: List[str], work: Path) -> Tuple[str, bool]:
        """Runs a resolution; its output and whether it failed."""
        from pyspark.find_spark_home import _find_spark_home

        env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_HOME=_find_spark_home())
        try:
            done = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True,
                                  timeout=_RESOLVE_TIMEOUT_S)
            return done.stdout + done.stderr, done.returncode != 0
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e), True


def _cause(output: str) -> str:
    """The lines of Ivy's output that say why it failed (the last ten), else its last lines."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    causes = [line for line in lines if any(marker in line for marker in _CAUSE_MARKERS)]
    return " | ".join((causes or lines)[-10:]) or "it printed nothing"


def jars_root() -> Path:
    """Where jar sets are resolved: ``$PAIMON_SPARK_JARS_DIR``, else the user's cache folder."""
    configured = os.environ.get(JARS_DIR_VARIABLE)
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "paimon-spark" / "jars"


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    """Holds an exclusive lock on the file ``lock`` (waiting for it). Where the OS has no ``fcntl``
    there is no lock: two processes may then both resolve, each into a folder of its own; the second
    rename fails without touching the first's folder, and its process uses that one."""
    with lock.open("a") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# What S3A needs beside the Hadoop that pyspark ships: hadoop-aws at Hadoop's exact version, the AWS
# SDK modules it uses (not the 650 MB SDK bundle its POM asks for), and the analytics accelerator
# that S3A 3.5.0 loads at start-up.
S3_PACKAGES = [
    "org.apache.hadoop:hadoop-aws:3.5.0",
    "software.amazon.awssdk:s3:2.35.4",
    "software.amazon.awssdk:s3-transfer-manager:2.35.4",
    "software.amazon.awssdk:sts:2.35.4",
    "software.amazon.s3.analyticsaccelerator:analyticsaccelerator-s3:1.3.1",
]
# Left out: the SDK bundle, and libraries Spark already ships in its own versions.
S3_EXCLUDES = [
    "software.amazon.awssdk:bundle",
    "commons-codec:commons-codec",
    "commons-logging:commons-logging",
    "org.apache.httpcomponents:httpclient",
    "org.apache.httpcomponents:httpcore",
    "org.slf4j:slf4j-api",
] + [
    f"io.netty:netty-{name}"
    for name in (
        "buffer", "codec", "codec-http", "codec-http2", "common", "handler", "resolver", "transport",
        "transport-classes-epoll", "transport-native-unix-common",
    )
]
S3 = JarSet("s3", tuple(S3_PACKAGES), tuple(S3_EXCLUDES))

# The JDBC catalog's drivers (metastore=jdbc): SQLite, an embedded file for one machine, and PostgreSQL,
# the server teams run. Each driver is one jar with no dependencies.
JDBC_PACKAGES = ["org.xerial:sqlite-jdbc:3.51.1.0", "org.postgresql:postgresql:42.7.8"]
JDBC = JarSet("jdbc", tuple(JDBC_PACKAGES))

# Google's GCS connector for gs:// warehouses: its shaded jar, with its Google libraries inside (relocated), so
# that none of them meets Spark's own versions.
GCS_PACKAGES = ["com.google.cloud.bigdataoss:gcs-connector:3.1.3:shaded"]
GCS = JarSet("gcs", tuple(GCS_PACKAGES))

# Hadoop's ABFS connector for abfs:// and abfss:// warehouses, at Hadoop's exact version, alone: its other
# dependencies are in Spark's Hadoop client already (Jackson, HttpClient, Hadoop's shaded Guava) or unused by
# ABFS (the legacy WASB client's azure-storage, the optional OpenSSL binding, HdrHistogram).
AZURE_PACKAGES = ["org.apache.hadoop:hadoop-azure:3.5.0"]
AZURE_EXCLUDES = [
    "com.microsoft.azure:azure-storage",
    "org.wildfly.openssl:wildfly-openssl",
    "org.hdrhistogram:HdrHistogram",
    "org.apache.hadoop.thirdparty:hadoop-shaded-guava",
    "org.apache.httpcomponents:httpclient",
    "org.apache.httpcomponents:httpcore",
    "com.fasterxml.jackson.core:jackson-core",
    "com.fasterxml.jackson.core:jackson-databind",
    "com.fasterxml.jackson.core:jackson-annotations",
    "org.apache.commons:commons-lang3",
    "commons-codec:commons-codec",
    "commons-logging:commons-logging",
    "org.slf4j:slf4j-api",
    "org.codehaus.jackson:jackson-mapper-asl",
    "org.codehaus.jackson:jackson-core-asl",
]
AZURE = JarSet("azure", tuple(AZURE_PACKAGES), tuple(AZURE_EXCLUDES))

# The sets `paimon-spark fetch-jars` knows by name.
NAMED = {S3.name: S3, JDBC.name: JDBC, GCS.name: GCS, AZURE.name: AZURE}
