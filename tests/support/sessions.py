"""The two kinds of session the Python API runs on: a classic (py4j) session in this process and a
Spark Connect session to a real local Connect server, started once per test run from the pyspark
installation with the engine jar (`sbin/start-connect-server.sh --jars ...`).

A test module imports `mode`, `warehouse` and `spark` from here to run each of its tests with both; the
server is tests/conftest.py's `connect_server`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
from pyspark.sql import SparkSession

from conftest import new_session
from deploy_util import SPARK_HOME, free_port, spark_env
from paimon_spark import engine_jar
from paimon_spark.errors import install_exception_translation

_EXTENSIONS = "paimonspark.spark.extensions.PaimonSparkSessionExtensions"


class ConnectServer:
    """A Spark Connect server in a child JVM (`--wait` keeps it in the foreground, so it is our child)."""

    def __init__(self, root: Path) -> None:
        self.warehouse = root / "warehouse"
        self.port = free_port()
        self.log = root / "connect-server.log"
        conf = {
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.warehouse.dir": str(root / "spark-warehouse"),
            "spark.sql.extensions": _EXTENSIONS,
            "spark.sql.catalog.paimon": "paimonspark.spark.PaimonCatalog",
            "spark.sql.catalog.paimon.warehouse": self.warehouse.as_uri(),
            "spark.sql.catalog.spark_catalog": "paimonspark.spark.PaimonSessionCatalog",
            "spark.sql.catalog.spark_catalog.warehouse": self.warehouse.as_uri(),
            "spark.sql.catalog.paimon_path": "paimonspark.spark.PaimonPathCatalog",
        }
        command = [str(SPARK_HOME / "sbin" / "start-connect-server.sh"), "--wait", "--master", "local[2]",
                   "--jars", engine_jar()]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        env = spark_env(SPARK_LOG_DIR=str(root), SPARK_PID_DIR=str(root))
        with self.log.open("w") as out:
            self.process = subprocess.Popen(command, env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        self._wait_until_listening(timeout=180)

    def _wait_until_listening(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                pytest.fail(f"the Spark Connect server exited {self.process.returncode}:\n"
                            f"{self.log.read_text()[-4000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        pytest.fail(f"the Spark Connect server did not listen on {self.port} in {timeout}s:\n"
                    f"{self.log.read_text()[-4000:]}")

    def session(self) -> SparkSession:
        install_exception_translation()
        return SparkSession.builder.remote(f"sc://127.0.0.1:{self.port}").getOrCreate()

    def stop(self) -> None:
        """Stops the server JVM too: the script runs it as a child, so the whole process group is signalled."""
        for sig, grace in ((signal.SIGTERM, 30.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            if self._group_gone(grace):
                break

    def _group_gone(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.process.poll()  # reaps the script, which would otherwise keep the group alive as a zombie
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.2)
        return False


@pytest.fixture(scope="module", params=["classic", "connect"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def warehouse(mode: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The warehouse the module's tables live in: the Connect server's own for a Connect session (shared
    by every module that runs on it, so each module names its tables apart)."""
    if mode == "connect":
        return request.getfixturevalue("connect_server").warehouse
    return tmp_path_factory.mktemp("wh") / "warehouse"


@pytest.fixture(scope="module")
def spark(mode: str, warehouse: Path, request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    if mode == "connect":
        session = request.getfixturevalue("connect_server").session()
    else:
        session = new_session(warehouse)
    yield session
    session.stop()
    # A Connect session marks the whole process as Connect (PySpark then builds Connect sessions and
    # Columns only); later modules need classic ones again.
    os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
