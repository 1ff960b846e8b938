"""Values a session set-up adds to what Spark already has: list settings it extends rather than
replaces, and warehouse locations kept as the user wrote them."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Dict, List, Optional
from urllib.parse import urlparse

from pyspark.sql import SparkSession

# A URI scheme (RFC 3986: a letter, then letters, digits, "+", "-", "."), followed by ":". One letter
# alone is not taken as a scheme, so that a drive letter stays a path.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]+:")

# The spark-submit flag that sets each list setting, for PYSPARK_SUBMIT_ARGS.
_SUBMIT_FLAGS = {"spark.jars": "--jars", "spark.jars.packages": "--packages", "spark.jars.excludes": "--exclude-packages"}


def warehouse_uri(warehouse: str) -> str:
    """A warehouse location with a scheme (``file:``, ``hdfs:``, ``s3a:``, ...) as given; a plain path
    as an absolute ``file:`` URI.

    >>> warehouse_uri("s3a://bucket/wh")
    's3a://bucket/wh'
    """
    if not warehouse.strip():
        raise ValueError("the warehouse location is empty")
    if _SCHEME.match(warehouse):
        return warehouse
    return Path(os.path.abspath(warehouse)).as_uri()


def appended(builder: SparkSession.Builder, key: str, values: List[str]) -> str:
    """The comma-separated list setting ``key`` with ``values`` added after what Spark would use
    otherwise: the builder's own value, else the value of a JVM already running (spark-submit starts
    one before the script), else spark-submit's sources (PYSPARK_SUBMIT_ARGS, spark-defaults.conf).
    A value the builder sets replaces those, so leaving them out would drop the user's jars.

    >>> appended(SparkSession.builder.config("spark.jars", "/opt/a.jar"), "spark.jars", ["/opt/b.jar"])
    '/opt/a.jar,/opt/b.jar'
    """
    existing = _split(_builder_value(builder, key) or _running_jvm_value(key) or _submit_value(key))
    known = {_local_path(v) for v in existing}
    return ",".join(existing + [v for v in values if _local_path(v) not in known])


def _local_path(value: str) -> str:
    """A ``file:`` URI as its path, anything else as it is: spark-submit turns the jar paths it is given
    into ``file:`` URIs, and a running JVM reports those."""
    return urlparse(value).path if value.startswith("file:") else value


def _split(value: Optional[str]) -> List[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _builder_value(builder: SparkSession.Builder, key: str) -> Optional[str]:
    options: Dict[str, object] = getattr(builder, "_options", {})
    value = options.get(key)
    return None if value is None else str(value)


def _running_jvm_value(key: str) -> Optional[str]:
    from pyspark import SparkContext

    if SparkContext._jvm is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        return None
    SparkContext._ensure_initialized()  # connects to the gateway spark-submit started; launches nothing
    jvm = SparkContext._jvm
    assert jvm is not None
    value = jvm.java.lang.System.getProperty(key)
    return None if value is None else str(value)


def _submit_value(key: str) -> Optional[str]:
    """What spark-submit will take for ``key`` when it starts the JVM: its flag in PYSPARK_SUBMIT_ARGS,
    else the spark-defaults.conf of SPARK_CONF_DIR (or of the Spark installation)."""
    args = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    flag = _SUBMIT_FLAGS.get(key)
    for i, arg in enumerate(args[:-1]):
        if arg == flag:
            return args[i + 1]
        if arg == "--conf" and args[i + 1].startswith(f"{key}="):
            return args[i + 1].split("=", 1)[1]
    return _spark_defaults().get(key)


def _spark_defaults() -> Dict[str, str]:
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if conf_dir is None:
        from pyspark.find_spark_home import _find_spark_home

        conf_dir = os.path.join(_find_spark_home(), "conf")
    path = Path(conf_dir) / "spark-defaults.conf"
    if not path.is_file():
        return {}
    values = {}
    for line in path.read_text().splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and not parts[0].startswith("#"):
            values[parts[0]] = parts[1].strip()
    return values
