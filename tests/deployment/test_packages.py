"""The engine as Spark users add a connector: `--packages` Maven coordinates resolved from a local Maven
repository (`make publish-local` publishes to ~/.m2; `make test` to the checkout's own, which the tests
resolve from alone), with nothing but the engine jar fetched. spark-submit --packages itself runs the
standalone cluster's job (test_standalone_cluster)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
import zipfile

from deploy_util import (ARTIFACT, COORDINATES, GROUP, SPARK_HOME, catalog_conf, conf_flags, ivy_conf, published_pom,
                         resolved_jars, run_tool, spark_env)
from paimon_spark import __version__

POM = "{http://maven.apache.org/POM/4.0.0}"


def test_the_pom_declares_nothing_but_provided_runtime_and_the_versions_agree():
    pom = ET.parse(published_pom()).getroot()
    assert (pom.findtext(f"{POM}groupId"), pom.findtext(f"{POM}artifactId"), pom.findtext(f"{POM}version")) == \
        (GROUP, ARTIFACT, __version__)
    dependencies = {(d.findtext(f"{POM}groupId"), d.findtext(f"{POM}artifactId")): d.findtext(f"{POM}scope")
                    for d in pom.iter(f"{POM}dependency")}
    assert dependencies == {("org.scala-lang", "scala-library"): "provided",
                            ("org.apache.spark", "spark-sql_2.13"): "provided",
                            ("org.apache.hadoop", "hadoop-client-api"): "provided"}
    jar = published_pom().with_suffix(".jar")
    manifest = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode()
    assert f"Implementation-Version: {__version__}" in manifest


SQL_ONLY = """
spark.sql("CREATE TABLE paimon.default.t (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k')")
spark.sql("INSERT INTO paimon.default.t VALUES (1, 'a'), (2, 'b')")
spark.sql("INSERT INTO paimon.default.t VALUES (2, 'c')")
print("ROWS", sorted(tuple(r) for r in spark.sql("SELECT * FROM paimon.default.t").collect()))
"""


def test_the_spark_jars_packages_conf_in_a_plain_python_session(tmp_path):
    warehouse = tmp_path / "warehouse"
    ivy = "".join(f"         .config({k!r}, {v!r})\n" for k, v in ivy_conf(tmp_path).items())
    script = ("from pyspark.sql import SparkSession\n"
              "spark = (SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
              f"         .config('spark.jars.packages', {COORDINATES!r})\n" + ivy +
              "         .config('spark.sql.catalog.paimon', 'paimonspark.spark.PaimonCatalog')\n"
              f"         .config('spark.sql.catalog.paimon.warehouse', {str(warehouse)!r}).getOrCreate())\n"
              + SQL_ONLY)
    done = run_tool([sys.executable, "-c", script], spark_env(), tmp_path)
    assert "ROWS [(1, 'a'), (2, 'c')]" in done.stdout
    assert resolved_jars(tmp_path) == [f"{GROUP}_{ARTIFACT}-{__version__}.jar"]


def test_the_pyspark_shell_with_packages(tmp_path):
    warehouse = tmp_path / "warehouse"
    # The shell runs its start-up file (which creates `spark`) in interactive mode only: -i keeps it
    # interactive while it reads the statements from a pipe.
    env = spark_env(PYSPARK_DRIVER_PYTHON_OPTS="-i -q")
    done = run_tool([SPARK_HOME / "bin" / "pyspark", "--master", "local[1]", "--packages", COORDINATES,
                     *conf_flags(ivy_conf(tmp_path)), *catalog_conf(warehouse)], env, tmp_path, stdin=SQL_ONLY)
    assert "ROWS [(1, 'a'), (2, 'c')]" in done.stdout, done.stderr[-3000:]
