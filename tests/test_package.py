"""The pip package carries the engine jar: a wheel installed without any network access works."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_carries_the_jar_and_works_offline(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(wheels), str(REPO / "python")], check=True)
    wheel = next(wheels.glob("paimon_spark-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "paimon_spark/jars/paimon-spark.jar" in names and "paimon_spark/py.typed" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True)
    script = (
        "import paimon_spark, sys\n"
        f"assert paimon_spark.__file__.startswith({str(target)!r}), paimon_spark.__file__\n"
        "from pyspark.sql import SparkSession\n"
        "b = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        f"spark = paimon_spark.configure_spark_with_paimon(b, warehouse={str(tmp_path / 'wh')!r}).getOrCreate()\n"
        "spark.sql('CREATE TABLE paimon.default.t (a INT)')\n"
        "spark.sql('INSERT INTO paimon.default.t VALUES (41), (1)')\n"
        "print('SUM', spark.sql('SELECT sum(a) FROM paimon.default.t').collect()[0][0])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(target), SPARK_LOCAL_IP="127.0.0.1")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert "SUM 42" in out.stdout, out.stderr[-3000:]
