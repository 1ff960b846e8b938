"""configure_spark_with_paimon keeps what the user set: a warehouse URI as given (refused by the engine,
naming it, when no filesystem serves it), and jars and packages already named, which it extends."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from pyspark import SparkContext
from pyspark.sql import SparkSession

from paimon_spark import configure_spark_with_paimon, engine_jar
from paimon_spark.jar_sets import S3, S3_EXCLUDES
from paimon_spark._conf import appended


def options(builder: SparkSession.Builder) -> dict:
    return builder._options  # type: ignore[attr-defined]


@pytest.mark.parametrize("given", ["s3a://bucket/wh", "hdfs://127.0.0.1:9000/wh", "file:///tmp/wh"])
def test_a_warehouse_with_a_scheme_is_kept_as_given(given):
    conf = options(configure_spark_with_paimon(SparkSession.builder, warehouse=given))
    assert conf["spark.sql.catalog.paimon.warehouse"] == given
    assert conf["spark.sql.catalog.spark_catalog.warehouse"] == given


def test_a_plain_warehouse_path_becomes_an_absolute_file_uri(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = options(configure_spark_with_paimon(SparkSession.builder, warehouse="wh"))
    assert conf["spark.sql.catalog.paimon.warehouse"] == (tmp_path / "wh").as_uri()


def test_jars_and_packages_are_extended_not_replaced():
    builder = (SparkSession.builder.config("spark.jars", "/opt/a.jar")
               .config("spark.jars.packages", "org.example:lib:1.0"))
    conf = options(configure_spark_with_paimon(builder, extra_packages=["org.example:other:2.0"]))
    assert conf["spark.jars"] == f"/opt/a.jar,{engine_jar()}"
    assert conf["spark.jars.packages"] == "org.example:lib:1.0,org.example:other:2.0"


def test_s3_adds_the_resolved_jars_of_hadoop_aws_and_the_sdk_modules_it_uses_without_the_bundle(monkeypatch):
    """The S3A set is loaded from the folder it was resolved into once (by this run's conftest), never
    resolved by the session's own Ivy: the user's packages are left as they were."""
    # As in a process whose JVM is not started yet (other tests of this run may have started one).
    monkeypatch.setattr(SparkContext, "_jvm", None)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    builder = SparkSession.builder.config("spark.jars.packages", "org.example:lib:1.0")
    conf = options(configure_spark_with_paimon(builder, warehouse="s3a://bucket/wh", s3=True))
    assert conf["spark.jars.packages"] == "org.example:lib:1.0" and "spark.jars.excludes" not in conf
    jars = conf["spark.jars"].split(",")
    assert jars[-1] == engine_jar() and jars[:-1] == S3.fetched()
    names = [Path(j).name for j in jars]
    assert "org.apache.hadoop_hadoop-aws-3.5.0.jar" in names and "software.amazon.awssdk_s3-2.35.4.jar" in names
    excluded = [e.replace(":", "_") + "-" for e in S3_EXCLUDES]
    assert not [n for n in names if n.startswith(tuple(excluded))], "an excluded library was resolved"
    assert conf["spark.hadoop.fs.s3.impl"] == "org.apache.hadoop.fs.s3a.S3AFileSystem"


def test_jars_spark_submit_would_use_are_kept(tmp_path, monkeypatch):
    """Without a value on the builder, spark-submit's own sources count: its arguments, then spark-defaults.conf."""
    (tmp_path / "spark-defaults.conf").write_text("# defaults\nspark.jars   /opt/from-defaults.jar\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    # As in a process whose JVM is not started yet (other tests of this run may have started one).
    monkeypatch.setattr(SparkContext, "_jvm", None)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--master local[1] pyspark-shell")
    assert appended(SparkSession.builder, "spark.jars", ["/e.jar"]) == "/opt/from-defaults.jar,/e.jar"
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--jars /opt/x.jar,/opt/y.jar pyspark-shell")
    assert appended(SparkSession.builder, "spark.jars", ["/e.jar"]) == "/opt/x.jar,/opt/y.jar,/e.jar"
    # A running JVM reports the jars it was given as file: URIs: the same jars are not added again.
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--jars file:///opt/x.jar pyspark-shell")
    assert appended(SparkSession.builder, "spark.jars", ["/opt/x.jar", "/e.jar"]) == "file:///opt/x.jar,/e.jar"
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--conf spark.jars.packages=g:a:1 pyspark-shell")
    assert appended(SparkSession.builder, "spark.jars.packages", ["g:b:2"]) == "g:a:1,g:b:2"


def test_a_session_keeps_the_users_jar_and_refuses_a_warehouse_no_filesystem_serves(tmp_path):
    """One real session in its own JVM: the user's jar is on it beside the engine's, and an s3a:
    warehouse without an S3 filesystem on the classpath is refused naming it, with nothing written
    to a directory named after it."""
    user_jar = tmp_path / "user.jar"
    with zipfile.ZipFile(user_jar, "w") as jar:
        jar.writestr("paimon_spark_test/marker.txt", "from the user's jar")
    script = textwrap.dedent(f"""
        import os
        from pyspark.sql import SparkSession
        from paimon_spark import configure_spark_with_paimon, InvalidOptionError
        builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                   .config("spark.driver.host", "127.0.0.1").config("spark.jars", {str(user_jar)!r}))
        spark = configure_spark_with_paimon(builder, warehouse="s3a://bucket/wh").getOrCreate()
        jars = spark.sparkContext._jsc.sc().listJars().mkString(",")
        print("JARS", jars)
        loader = spark.sparkContext._jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
        print("MARKER", loader.getResource("paimon_spark_test/marker.txt") is not None)
        try:
            spark.sql("SHOW TABLES IN paimon.default").collect()
            print("REFUSED no")
        except InvalidOptionError as e:
            print("REFUSED", e.value, "|", str(e).splitlines()[0])
        print("LEFT", sorted(os.listdir(".")))
    """)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in run.stdout.splitlines() if " " in line}
    assert run.returncode == 0, run.stderr[-3000:]
    assert "user.jar" in lines["JARS"] and Path(engine_jar()).name in lines["JARS"]
    assert lines["MARKER"] == "True"
    value, message = lines["REFUSED"].split(" | ")
    assert value == "spark.sql.catalog.paimon.warehouse"
    assert "s3a://bucket/wh" in message and "s3a" in message
    assert lines["LEFT"] == "['user.jar']"
