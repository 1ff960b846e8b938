"""A real S3 API for the object-store suites: a moto server (`moto[server]` from PyPI, serialized:
`serialized_moto.py`) on 127.0.0.1 at a free port, with the settings Spark (S3A), pypaimon and worker
processes need to use it."""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from pyspark.sql import SparkSession

from deploy_util import free_port
from store_emulators import StoreEmulator

class MotoS3(StoreEmulator):
    """A moto server in a child process, stopped by `stop()`."""

    def __init__(self, log: Path, **env: str) -> None:
        """`env`: moto's own settings, such as INITIAL_NO_AUTH_ACTION_COUNT (requests served before it
        checks credentials)."""
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        server = Path(__file__).resolve().parent / "serialized_moto.py"
        # Its request recorder (used by the bench) writes beside the log, not in the working directory.
        super().__init__([sys.executable, str(server), "127.0.0.1", str(self.port)], log, self._answers,
                         env={**os.environ, "MOTO_RECORDER_FILEPATH": str(log.with_name("moto_recording")), **env})

    def _answers(self) -> bool:
        try:
            urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1).close()
            return True
        except OSError:
            return False

    def create_bucket(self, name: str) -> str:
        """Creates a bucket (moto checks no signature: a path-style PUT does) and returns its name."""
        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/{name}", method="PUT"), timeout=10).close()
        return name

    def client(self) -> Any:
        """A boto3 S3 client of this server, with the credentials the tests use."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id="test",
                            aws_secret_access_key="test")

    def spark_conf(self) -> Dict[str, str]:
        """S3A's settings for this server, as `spark.hadoop.*` session settings (short retries: it is local)."""
        return {
            "spark.hadoop.fs.s3a.endpoint": self.endpoint,
            "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
            "spark.hadoop.fs.s3a.path.style.access": "true",
            "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
            "spark.hadoop.fs.s3a.access.key": "test",
            "spark.hadoop.fs.s3a.secret.key": "test",
            "spark.hadoop.fs.s3a.retry.limit": "2",
            "spark.hadoop.fs.s3a.attempts.maximum": "2",
        }

    def pypaimon_options(self) -> Dict[str, str]:
        """pypaimon's catalog options for this server (it reads S3 through pyarrow)."""
        return {"fs.s3.endpoint": self.endpoint, "fs.s3.region": "us-east-1", "fs.s3.accessKeyId": "test",
                "fs.s3.accessKeySecret": "test", "fs.s3.path-style-access": "true"}


# ---- fixtures: a test module imports `moto`, `bucket`, `warehouse`, `spark` and `oracle` from here ----


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoS3]:
    """A moto server for the module."""
    server = MotoS3(tmp_path_factory.mktemp("moto") / "moto.log")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bucket(moto: MotoS3, request: pytest.FixtureRequest) -> str:
    """A bucket of the module's own: S3A caches one filesystem per bucket for the whole JVM."""
    return moto.create_bucket(request.module.__name__.split(".")[-1].replace("_", "-"))


@pytest.fixture(scope="module")
def warehouse(bucket: str) -> str:
    return f"s3a://{bucket}/warehouse"


@pytest.fixture(scope="module")
def spark(warehouse: str, moto: MotoS3) -> Iterator[SparkSession]:
    from conftest import new_session

    # Two keys per LIST request: every listing the engine makes (expiry, rollback, orphan cleanup, tags, branches)
    # takes several pages, as listings of real tables do.
    session = new_session(warehouse, **moto.spark_conf(), **{"spark.hadoop.fs.s3a.paging.maximum": "2"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def oracle(warehouse: str, moto: MotoS3) -> Any:
    """pypaimon over the same warehouse, reading S3 through pyarrow with its own `fs.s3.*` options."""
    from pypaimon import CatalogFactory

    return CatalogFactory.create({"warehouse": warehouse.replace("s3a://", "s3://"), **moto.pypaimon_options()})


def keys(moto: MotoS3, bucket: str, prefix: str) -> List[str]:
    """The object keys under `prefix`, as the store lists them (every page), without directory markers."""
    found: List[str] = []
    for page in moto.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        found += [o["Key"] for o in page.get("Contents", []) if not o["Key"].endswith("/")]
    return found
