"""docker/ as far as it can be checked without a container runtime (none runs here or in CI): the
start scripts parse (and pass shellcheck where it is installed), and compose.yaml and the Dockerfile
only name scripts, jobs and paths that exist and agree with each other. What the scripts do is run
by test_standalone_cluster.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import yaml

from deploy_util import REPO

DOCKER = REPO / "docker"
IMAGE_ROOT = "/opt/paimon-spark/"


def test_the_start_scripts_parse():
    scripts = sorted((DOCKER / "bin").glob("*.sh"))
    assert {s.name for s in scripts} >= {"start-master.sh", "start-worker.sh", "submit.sh", "spark-env.sh"}
    for script in scripts:
        subprocess.run(["bash", "-n", str(script)], check=True)
        if script.name != "spark-env.sh":
            assert os.access(script, os.X_OK), f"{script} is not executable"
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", "-x", *map(str, scripts)], check=True, cwd=DOCKER / "bin")


def test_compose_runs_the_image_scripts_on_one_shared_warehouse():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"master", "worker-1", "worker-2", "client"}
    for name, service in services.items():
        assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}, name
        assert "warehouse:/warehouse" in service["volumes"], name
        for part in service["command"]:
            if part.startswith(IMAGE_ROOT):
                assert (DOCKER / part[len(IMAGE_ROOT):]).is_file(), f"{name} runs {part}, which docker/ lacks"
        assert service["environment"]["SPARK_MASTER_HOST"] == services["master"]["hostname"], name
    assert services["master"]["command"] == [IMAGE_ROOT + "bin/start-master.sh"]
    for worker in ("worker-1", "worker-2"):
        assert services[worker]["command"] == [IMAGE_ROOT + "bin/start-worker.sh"]
        assert services[worker]["environment"]["SPARK_WORKER_HOST"] == services[worker]["hostname"]
    assert services["client"]["command"][0] == IMAGE_ROOT + "bin/submit.sh"
    assert "warehouse" in compose["volumes"]


def test_the_dockerfile_copies_what_exists_and_sets_the_warehouse():
    text = (DOCKER / "Dockerfile").read_text()
    copies = re.findall(r"^COPY (\S+) (\S+)$", text, re.MULTILINE)
    assert ("docker/bin/", IMAGE_ROOT + "bin/") in copies and ("docker/jobs/", IMAGE_ROOT + "jobs/") in copies
    for source, _ in copies:
        if not source.startswith("dist/"):  # the wheel is built by `make wheel`
            assert (REPO / source).exists(), source
    assert re.search(r"PAIMON_WAREHOUSE=/warehouse", text) and "VOLUME /warehouse" in text
    assert "openjdk-17-jre-headless" in text
