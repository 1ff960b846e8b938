"""Google Cloud Storage and Azure Blob storage for the object-store suites, each in a child process on
127.0.0.1 at a free port: fake-gcs-server (`fake_gcs.py`) and Azurite behind a listing-order proxy
(`sorted_azurite.py`, Azurite installed by `make emulators`), with the connector settings Spark needs to
reach them (the same the Scala suites use: engine-scala/src/test/scala/paimonspark/fs/StoreEmulator.scala)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Callable, Dict, List, Optional

from deploy_util import REPO, free_port

# Worker processes take their object store's Spark settings from this variable (S3, GCS or Azure).
ENV = "PAIMON_TEST_STORE_CONF"

AZURITE = REPO / ".cache" / "node" / "node_modules" / ".bin" / "azurite-blob"
AZURE_ACCOUNT = "devstoreaccount1"
# Azurite's well-known development key.
AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def conf_from_env() -> Dict[str, str]:
    """The store settings a worker process was given by `StoreEmulator.worker_env()`, or none."""
    return json.loads(os.environ.get(ENV, "{}"))


def _recording(record: Optional[Path]) -> Optional[Dict[str, str]]:
    return {**os.environ, "STORE_PROXY_RECORD": str(record)} if record else None


class StoreEmulator:
    """An object store's emulator in a child process (its own process group), stopped by `stop()`."""

    def __init__(self, command: List[str], log: Path, ready: Callable[[], bool],
                 env: Optional[Dict[str, str]] = None) -> None:
        with log.open("w") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                            env=env)
        deadline = time.monotonic() + 90
        while not ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{command[1]} did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)

    def spark_conf(self) -> Dict[str, str]:
        """The connector's settings for this emulator, as `spark.hadoop.*` session settings."""
        raise NotImplementedError

    def worker_env(self) -> Dict[str, str]:
        """The environment of a writer process on this store: its settings (conftest.new_session reads them)."""
        return {**os.environ, ENV: json.dumps(self.spark_conf())}

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class FakeGcs(StoreEmulator):
    def __init__(self, log: Path, bucket: str = "wh-bucket", record: Optional[Path] = None) -> None:
        """`record`: a file its proxy appends each request to (store_proxy.py)."""
        self.port, self.bucket = free_port(), bucket
        super().__init__([sys.executable, str(Path(__file__).with_name("fake_gcs.py")), str(self.port), bucket], log,
                         self._answers, env=_recording(record))

    def _answers(self) -> bool:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{self.port}/storage/v1/b/{self.bucket}", timeout=1).close()
            return True
        except OSError:
            return False

    def uri(self, path: str) -> str:
        return f"gs://{self.bucket}/{path}"

    def spark_conf(self) -> Dict[str, str]:
        # The emulator checks create-if-absent preconditions on single-request uploads only.
        return {f"spark.hadoop.{k}": v for k, v in {"fs.gs.storage.root.url": f"http://127.0.0.1:{self.port}", "fs.gs.auth.type": "UNAUTHENTICATED",
                "fs.gs.project.id": "test", "fs.gs.outputstream.direct.upload.enable": "true"}.items()}


class Azurite(StoreEmulator):
    def __init__(self, log: Path, container: str = "wh-container", record: Optional[Path] = None) -> None:
        """`record`: a file its proxy appends each request to (store_proxy.py)."""
        if not os.access(AZURITE, os.X_OK):
            raise RuntimeError(f"no Azurite at {AZURITE}: run `make emulators`")
        self.port, self.container = free_port(), container
        data = tempfile.mkdtemp(prefix="azurite-")
        super().__init__([sys.executable, str(Path(__file__).with_name("sorted_azurite.py")), str(AZURITE),
                          str(self.port), data], log, self._listening, env=_recording(record))

    def _listening(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def uri(self, path: str) -> str:
        return f"abfs://{self.container}@{AZURE_ACCOUNT}.dfs.core.windows.net/{path}"

    def spark_conf(self) -> Dict[str, str]:
        # Over http, ABFS needs the JDK's HTTP client: its default one has no SSL factory to skip.
        return {f"spark.hadoop.{k}": v for k, v in {f"fs.azure.account.key.{AZURE_ACCOUNT}.dfs.core.windows.net": AZURE_KEY,
                "fs.azure.account.auth.type": "SharedKey", "fs.azure.abfs.endpoint": f"127.0.0.1:{self.port}",
                "fs.azure.always.use.https": "false", "fs.azure.networking.library": "JDK_HTTP_URL_CONNECTION"}.items()}
