"""A real HDFS for the tests (tests/support/HdfsServer.java, run by Java's source launcher on the jars
`hdfsOracle/writeClasspath` resolves, beside pyspark's), and a Hadoop configuration folder that names it as
an HA nameservice, as a cluster's `hdfs-site.xml` does."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Dict

from deploy_util import REPO, SPARK_HOME, kill_group

CLASSPATH = REPO / "target" / "hdfs-oracle.classpath"
_LAUNCHER = Path(__file__).resolve().parent / "HdfsServer.java"
NAMESERVICE = "paimonns"


class HdfsCluster:
    """A name node and a data node at `uri` (hdfs://127.0.0.1:PORT), its metrics at `http`/jmx, until `stop()`."""

    def __init__(self, root: Path) -> None:
        if not CLASSPATH.is_file():
            raise FileNotFoundError(f"{CLASSPATH} is missing: run `build/sbt hdfsOracle/writeClasspath` (make test does)")
        root.mkdir(parents=True, exist_ok=True)
        self.root, self.log = root, root / "hdfs.log"
        java = shutil.which("java") or "java"
        # Its metrics (the name node's RPCs by method, which the storage bench counts) refreshed every second, not
        # every ten: Hadoop's metrics system reads this file from the classpath.
        metrics = root / "metrics"
        metrics.mkdir(exist_ok=True)
        (metrics / "hadoop-metrics2.properties").write_text("*.period=1\n")
        command = [java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                   f"{metrics}:{CLASSPATH.read_text().strip()}:{SPARK_HOME / 'jars'}/*", str(_LAUNCHER),
                   str(root / "data")]
        with self.log.open("w") as out:
            self.process = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 240
        while not (ready := [line for line in self.log.read_text().splitlines() if line.startswith("READY ")]):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"HDFS did not start:\n{self.log.read_text()[-4000:]}")
            time.sleep(0.5)
        self.uri, self.http = ready[0].split()[1:3]

    def nameservice(self) -> Dict[str, str]:
        """The client settings of an HA nameservice `paimonns` whose one name node is this one."""
        return {"dfs.nameservices": NAMESERVICE, f"dfs.ha.namenodes.{NAMESERVICE}": "nn1",
                f"dfs.namenode.rpc-address.{NAMESERVICE}.nn1": self.uri.removeprefix("hdfs://"),
                f"dfs.client.failover.proxy.provider.{NAMESERVICE}":
                    "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider"}

    def conf_dir(self) -> Path:
        """A HADOOP_CONF_DIR whose hdfs-site.xml names the nameservice."""
        folder = self.root / "hadoop-conf"
        folder.mkdir(exist_ok=True)
        properties = "".join(f"<property><name>{k}</name><value>{v}</value></property>"
                             for k, v in self.nameservice().items())
        (folder / "hdfs-site.xml").write_text(f'<?xml version="1.0"?><configuration>{properties}</configuration>')
        return folder

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            kill_group(self.process, "HDFS")
