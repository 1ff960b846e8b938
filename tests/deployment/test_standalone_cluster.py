"""A Spark standalone cluster from the pyspark installation: a master and two workers started by the
docker/ start scripts (the ones the containers run), each worker with its own work directory, and a
job submitted with docker/bin/submit.sh and --packages. Executors write and read in their own JVMs;
pypaimon checks what they left."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
from pypaimon import CatalogFactory

from deploy_util import (ARTIFACT, CLUSTER_JOB, COORDINATES, DOCKER_BIN, GROUP, conf_flags, free_port, ivy_conf,
                         job_result, published_pom, resolved_jars, run_tool, spark_env)
from paimon_spark import __version__


class Cluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.url = f"spark://127.0.0.1:{free_port()}"
        self.env = spark_env(SPARK_MASTER_URL=self.url, SPARK_MASTER_HOST="127.0.0.1",
                             SPARK_MASTER_PORT=self.url.rsplit(":", 1)[1], SPARK_MASTER_WEBUI_PORT="0",
                             SPARK_WORKER_WEBUI_PORT="0", SPARK_WORKER_MEMORY="1g", SPARK_WORKER_CORES="1")
        self.processes: list[tuple[subprocess.Popen, Path]] = []

    def start(self, script: str, name: str, **env: str) -> Path:
        log = self.root / f"{name}.log"
        with open(log, "w") as out:
            process = subprocess.Popen([str(DOCKER_BIN / script)], env=dict(self.env, **env), cwd=self.root,
                                       stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append((process, log))
        return log

    def wait_for(self, log: Path, text: str, timeout: float = 60) -> None:
        deadline = time.time() + timeout
        while text not in log.read_text():
            for process, _ in self.processes:
                assert process.poll() is None, f"{log.name}: a cluster process exited:\n{log.read_text()[-3000:]}"
            assert time.time() < deadline, f"{log.name} never said {text!r}:\n{log.read_text()[-3000:]}"
            time.sleep(0.3)

    def stop(self) -> None:
        for process, _ in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process, _ in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = Cluster(tmp_path_factory.mktemp("standalone"))
    try:
        master = cluster.start("start-master.sh", "master")
        cluster.wait_for(master, "I have been elected leader")
        for i in (1, 2):
            worker = cluster.start("start-worker.sh", f"worker-{i}", SPARK_WORKER_DIR=str(cluster.root / f"work-{i}"))
            cluster.wait_for(worker, "Successfully registered with master")
        yield cluster
    finally:
        cluster.stop()


def test_a_sql_job_runs_across_two_worker_jvms(cluster, tmp_path):
    published_pom()
    warehouse = tmp_path / "warehouse"
    env = dict(cluster.env, PAIMON_WAREHOUSE=str(warehouse), PAIMON_SPARK_PACKAGES=COORDINATES,
               SPARK_SUBMIT_ARGS=" ".join(conf_flags(ivy_conf(tmp_path))) + " --conf spark.executor.memory=512m "
                                 "--conf spark.executor.cores=1 --conf spark.cores.max=2 --conf spark.ui.enabled=false "
                                 "--conf spark.driver.host=127.0.0.1")
    done = run_tool([DOCKER_BIN / "submit.sh", CLUSTER_JOB, "--executors", "2"], env, tmp_path, timeout=400)
    assert resolved_jars(tmp_path) == [f"{GROUP}_{ARTIFACT}-{__version__}.jar"]  # the engine alone, nothing else
    result = job_result(done.stdout)
    assert result["executors"] == 2
    # Each worker ran an executor of the job in its own work directory.
    for i in (1, 2):
        assert list((cluster.root / f"work-{i}").glob("app-*/*/stderr")), f"worker {i} ran no executor"
    assert result == {"executors": 2, "events_count": 20000, "events_p3": 5000, "users_visits": 7500,
                      "users_count": 5000, "compacted": True, "latest_kind": "COMPACT", "first_visits": 5000,
                      "snapshot_1_visits": 5000}
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})

    def read(name: str, options: dict | None = None):
        table = catalog.get_table(name)
        builder = (table.copy(options) if options else table).new_read_builder()
        return builder.new_read().to_arrow(builder.new_scan().plan().splits())

    events = read("cluster.events")
    assert events.num_rows == 20000 and sorted(events["id"].to_pylist()) == list(range(20000))
    users = {r["id"]: (r["name"], r["visits"]) for r in read("cluster.users").to_pylist()}
    assert users == {i: ((f"v{i}", 2) if i % 2 == 0 else (f"u{i}", 1)) for i in range(5000)}
    assert sum(read("cluster.users", {"scan.tag-name": "first"})["visits"].to_pylist()) == 5000
