"""The S3A jars on a machine that never resolved them: sessions that start at once resolve them once,
one process at a time, and a resolution that fails says why and what to run. Maven Central is stood for
by the Ivy cache of the set this run resolved (an Ivy settings file in SPARK_CONF_DIR, as a user's mirror
would be given), so that nothing leaves the machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deploy_util import ivy_conf, job_result, spark_env
from paimon_spark import DependencyResolutionError, configure_spark_with_paimon
from paimon_spark.jar_sets import JARS_DIR_VARIABLE, S3
from pyspark.sql import SparkSession

SESSION = """
import json, sys
from pyspark.sql import SparkSession
from paimon_spark import configure_spark_with_paimon
builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
spark = configure_spark_with_paimon(builder, warehouse=sys.argv[1], s3=True).getOrCreate()
spark._jvm.org.apache.spark.util.Utils.classForName("org.apache.hadoop.fs.s3a.S3AFileSystem", True, False)
print("RESULT " + json.dumps({"jars": spark.conf.get("spark.jars").split(",")}))
"""
RESOLVING = "resolving the s3 jars once"


def spark_conf_dir(tmp_path: Path, ivy_cache: Path) -> Path:
    """A SPARK_CONF_DIR whose spark-defaults.conf resolves Maven packages from `ivy_cache` only."""
    conf = tmp_path / "conf"
    conf.mkdir()
    settings = ivy_conf(tmp_path, ivy_cache)["spark.jars.ivySettings"]
    (conf / "spark-defaults.conf").write_text(f"spark.jars.ivySettings {settings}\n")
    return conf


def test_two_sessions_starting_at_once_on_a_cold_machine_resolve_the_s3_jars_once(tmp_path):
    jars_dir = tmp_path / "jars"
    env = spark_env(**{JARS_DIR_VARIABLE: str(jars_dir), "SPARK_CONF_DIR": str(spark_conf_dir(tmp_path, S3.folder() / "cache"))})
    sessions = [subprocess.Popen([sys.executable, "-c", SESSION, str(tmp_path / f"wh{i}")], env=env, cwd=tmp_path,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (1, 2)]
    outputs = [s.communicate(timeout=300) for s in sessions]
    for session, (out, err) in zip(sessions, outputs):
        assert session.returncode == 0, f"{out[-2000:]}\n{err[-4000:]}"
    assert sum(err.count(RESOLVING) for _, err in outputs) == 1
    fresh = S3.fetched(jars_dir)
    assert fresh and [Path(j).name for j in fresh] == [Path(j).name for j in S3.fetched() or []]
    for out, _ in outputs:
        assert job_result(out)["jars"][:-1] == fresh
    # Nothing but the set's folder and its lock file: no partial resolution left behind.
    assert sorted(p.name for p in jars_dir.iterdir()) == sorted([S3.folder(jars_dir).name, f".{S3.folder(jars_dir).name}.lock"])
    # The command a spark-submit user runs prints the same jars, for --jars, without resolving again.
    again = subprocess.run([sys.executable, "-m", "paimon_spark", "fetch-jars", "s3"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout.strip().split(",") == fresh and RESOLVING not in again.stderr


def test_a_resolution_that_fails_says_what_ivy_reported_and_what_to_run(tmp_path, monkeypatch):
    """An Ivy that finds nothing (an offline machine): the command exits 1 with Ivy's reason and the
    command to run again; a session is refused before it starts, with the same error; nothing is kept."""
    nowhere = tmp_path / "empty-ivy-cache"
    nowhere.mkdir()
    conf = spark_conf_dir(tmp_path, nowhere)
    jars_dir = tmp_path / "jars"
    env = spark_env(**{"SPARK_CONF_DIR": str(conf)})
    done = subprocess.run([sys.executable, "-m", "paimon_spark", "fetch-jars", "s3", "--dir", str(jars_dir)], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("paimon-spark: could not resolve the s3 jars (org.apache.hadoop:hadoop-aws:3.5.0")
    assert "unresolved dependency" in message and "run `paimon-spark fetch-jars s3` to try again" in message
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf))
    monkeypatch.setenv(JARS_DIR_VARIABLE, str(jars_dir))
    with pytest.raises(DependencyResolutionError) as error:
        configure_spark_with_paimon(SparkSession.builder, warehouse="s3a://bucket/wh", s3=True)
    assert error.value.value == "s3" and "unresolved dependency" in str(error.value)
    assert [p.name for p in jars_dir.iterdir()] == [f".{S3.folder(jars_dir).name}.lock"]
