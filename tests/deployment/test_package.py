"""The pip package carries the engine jar: the wheel `make wheel` builds installs into a fresh virtual
environment with no network access and runs a job; its `paimon-spark` command answers there, and its code
lists a table there."""

import os
import site
import subprocess
import sys
import zipfile

from deploy_util import REPO
from paimon_spark import __version__


def test_a_wheel_in_a_fresh_venv_works_offline(tmp_path):
    # The target users run; the jar it packs is already built (make test builds it first).
    subprocess.run(["make", "-s", "wheel"], cwd=REPO, check=True)
    wheel = next((REPO / "dist").glob("paimon_spark-*.whl"))
    assert wheel.name.startswith(f"paimon_spark-{__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    assert "paimon_spark/jars/paimon-spark.jar" in names and "paimon_spark/py.typed" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # pyspark (a 400 MB download) is lent by this environment rather than fetched: a path file makes
    # its site-packages visible after the new venv's own, so pip sees the dependency satisfied.
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(own, "lent.pth"), "w") as pth:
        pth.write(site.getsitepackages()[0] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "-q", str(wheel)],
                   check=True)
    script = (
        "import paimon_spark\n"
        f"assert paimon_spark.__file__.startswith({str(venv)!r}), paimon_spark.__file__\n"
        "from pyspark.sql import SparkSession\n"
        "b = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        f"spark = paimon_spark.configure_spark_with_paimon(b, warehouse={str(tmp_path / 'wh')!r}).getOrCreate()\n"
        "spark.sql('CREATE TABLE paimon.default.t (a INT)')\n"
        "spark.sql('INSERT INTO paimon.default.t VALUES (41), (1)')\n"
        "print('SUM', spark.sql('SELECT sum(a) FROM paimon.default.t').collect()[0][0])\n"
        # The installed command's code, in this session's JVM: a second JVM would prove nothing more.
        "from paimon_spark.cli import main\n"
        f"print('TAGS', main(['tags', {str(tmp_path / 'wh' / 'default.db' / 't')!r}]))\n"
    )
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=str(python))
    out = subprocess.run([python, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "SUM 42" in out.stdout, out.stderr[-3000:]
    tags = out.stdout.split("SUM 42\n", 1)[1].split()
    assert tags == ["tag_name", "snapshot_id", "commit_time", "record_count", "create_time", "time_retained",
                    "--------", "-----------", "-----------", "------------", "-----------", "-------------",
                    "TAGS", "0"], out.stdout
    version = subprocess.run([venv / "bin" / "paimon-spark", "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"paimon-spark {__version__}"
