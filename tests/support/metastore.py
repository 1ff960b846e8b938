"""A real Hive Metastore for the tests: Hive 2.3.10 from pyspark's own jars with embedded Derby, in a child
JVM listening on 127.0.0.1 only (tests/support/LoopbackMetastore.java, run by Java's source launcher, as the
Scala suites' MetastoreServer runs it)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from deploy_util import SPARK_HOME, free_port, kill_group

_SUPPORT = Path(__file__).resolve().parent


def _hive_site(root: Path, settings: dict[str, str]) -> str:
    properties = {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={root / 'metastore_db'};create=true",
        "hive.metastore.warehouse.dir": (root / "warehouse").as_uri(),
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        # BoneCP, Hive's default pool, is not among pyspark's jars.
        "datanucleus.connectionPoolingType": "DBCP",
        "hive.metastore.try.direct.sql": "false",
        "hive.async.log.enabled": "false",
        **settings,
    }
    lines = [f"  <property><name>{k}</name><value>{v}</value></property>" for k, v in properties.items()]
    return '<?xml version="1.0"?>\n<configuration>\n' + "\n".join(lines) + "\n</configuration>\n"


class Metastore:
    """The server, its thrift `uri` and the `warehouse` its `default` database lives in, until `stop()`."""

    def __init__(self, root: Path, **settings: str) -> None:
        root.mkdir(parents=True, exist_ok=True)
        conf = root / "conf"
        conf.mkdir(exist_ok=True)
        (conf / "hive-site.xml").write_text(_hive_site(root, settings))
        self.port = free_port()
        self.uri = f"thrift://127.0.0.1:{self.port}"
        self.warehouse = root / "warehouse"
        self.log = root / "metastore.log"
        java = shutil.which("java") or "java"
        # The client compiler alone and the serial collector, as the suites' other short-lived JVMs (jvm_options).
        command = [java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                   f"-Dderby.stream.error.file={root / 'derby.log'}", "-cp",
                   f"{conf}:{SPARK_HOME / 'jars'}/*", str(_SUPPORT / "LoopbackMetastore.java"), str(self.port)]
        with self.log.open("w") as out:
            self.process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + 180
        while "LISTENING" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the metastore did not start:\n{self.log.read_text()[-4000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            kill_group(self.process, "the metastore")
