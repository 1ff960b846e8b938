"""Warehouses on Google Cloud Storage (fake-gcs-server), Azure Blob storage (Azurite) and HDFS (Hadoop's
minicluster), all on this machine: the requests, bytes and wall time of each kind of commit and of a scan's
planning, ours against Apache Paimon's Java core doing the same through its filesystem catalog.

Requests are counted by the store, so both engines are counted the same way: by a pass-through proxy in
front of each emulator (tests/support/store_proxy.py), and by the name node's own RPC metrics on HDFS.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Protocol, Tuple

from pyspark.sql import SparkSession

from java_writer import java_classpath
from harness import Check, Comparison
from paimon_spark.session import AZURE_SETTINGS, GCS_SETTINGS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from hdfs_cluster import HdfsCluster  # noqa: E402  (the tests' servers, one definition each)
from store_emulators import Azurite, FakeGcs  # noqa: E402

NAME = "storage"
TITLE = "Storage: requests, bytes and wall time per commit and per scan planning on GCS, Azure and HDFS, ours vs Java"
STEPS = ["append", "primary-key with compaction", "expiry", "scan planning"]
# Steps timed again after the counted run, for wall time (the first run of each pays for the JIT).
TIMED_STEPS = ["append", "scan planning"]


class Requests(Protocol):
    """What a store served since `reset()`: requests by kind, and bytes sent and received."""

    def reset(self) -> None: ...

    def counts(self) -> Tuple[Counter, int]: ...


@dataclass
class Measured:
    requests: Counter = field(default_factory=Counter)
    bytes: int = 0
    seconds: List[float] = field(default_factory=list)


class ProxyRecord:
    """The request log a store's proxy appends to, read from where the last reset left it."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0
        path.touch()

    def reset(self) -> None:
        self.offset = self.path.stat().st_size

    def counts(self) -> Tuple[Counter, int]:
        with self.path.open() as log:
            log.seek(self.offset)
            entries = [json.loads(line) for line in log if line.strip()]
        kinds = Counter(self.kind(e) for e in entries)
        return kinds, sum(e["sent"] + e["received"] for e in entries)

    @staticmethod
    def kind(entry: dict) -> str:
        """GET splits into listings (GCS: objects under a prefix; Azure: comp=list) and reads."""
        method, path = entry["method"], entry["path"]
        listing = "comp=list" in path or ("/o?" in path and "alt=media" not in path) or path.endswith("/o")
        return "LIST" if method == "GET" and listing else method


# What data nodes call on the name node (heartbeats, block reports): not a client's requests. The metrics also
# count each call again as "Overall<Method>", and the exceptions calls ended in ("FileNotFoundException").
DATANODE_CALLS = {"SendHeartbeat", "SendLifeline", "BlockReceivedAndDeleted", "BlockReport", "CacheReport",
                  "ErrorReport", "VersionRequest", "RegisterDatanode", "CommitBlockSynchronization"}


class NameNodeRpcs:
    """The name node's RPCs by method (its RpcDetailedActivity metrics), since `reset()`. Bytes go to the data
    node, not counted here. The timed steps' wall time is measured apart from these reads."""

    def __init__(self, cluster: HdfsCluster) -> None:
        self.url = f"{cluster.http}/jmx?qry=Hadoop:service=NameNode,name=RpcDetailedActivityForPort" + \
                   cluster.uri.rsplit(":", 1)[1]
        self.base = self._now()

    def _now(self) -> Counter:
        time.sleep(2.2)  # the metrics refresh every second (hdfs_cluster.py): let the last calls land in them
        with urllib.request.urlopen(self.url, timeout=30) as answer:
            beans = json.loads(answer.read())["beans"]
        return Counter({k.removesuffix("NumOps"): v for bean in beans for k, v in bean.items()
                        if k.endswith("NumOps") and not k.startswith("Overall") and k[:-6] not in DATANODE_CALLS
                        and not k[:-6].endswith("Exception")})

    def reset(self) -> None:
        self.base = self._now()

    def counts(self) -> Tuple[Counter, int]:
        return +(self._now() - self.base), 0


def our_steps(spark: SparkSession, warehouse: str, requests: Requests, repeats: int) -> Dict[str, Measured]:
    """Each step once, counted, then the timed steps `repeats` more times."""
    sql = spark.sql
    sql(f"CREATE TABLE paimon_path.`{warehouse}/log` (id INT)")
    sql(f"CREATE TABLE paimon_path.`{warehouse}/pk` (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
        "'bucket' = '1')")
    sql(f"INSERT INTO paimon_path.`{warehouse}/log` VALUES (0)")
    sql(f"INSERT INTO paimon_path.`{warehouse}/pk` VALUES (0, 'v')")
    actions: Dict[str, Callable[[], object]] = {
        "append": lambda: sql(f"INSERT INTO paimon_path.`{warehouse}/log` VALUES (1)"),
        "primary-key with compaction": lambda: (
            sql(f"INSERT INTO paimon_path.`{warehouse}/pk` VALUES (1, 'a')"),
            sql(f"CALL paimon_path.sys.compact(table => '{warehouse}/pk')").collect()),
        "expiry": lambda: sql(f"CALL paimon_path.sys.expire_snapshots(table => '{warehouse}/log', retain_max => 1, "
                              "retain_min => 1)").collect(),
        # Planning alone: the scan's partitions (its splits), with no task run.
        "scan planning": lambda: spark.table(f"paimon_path.`{warehouse}/pk`")._jdf.queryExecution().toRdd()
        .getNumPartitions(),
    }
    return _measure(STEPS, lambda step: actions[step](), requests, repeats)


def java_steps(classpath: str, warehouse: str, options: Dict[str, str], requests: Requests,
               repeats: int) -> Dict[str, Measured]:
    """The same steps by JavaStoreCommits, one line on its stdin each."""
    java = subprocess.Popen(["java", "-cp", classpath, "paimonspark.bench.JavaStoreCommits", warehouse, "steps",
                             *(f"{k}={v}" for k, v in options.items())],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert java.stdin is not None and java.stdout is not None

    def answer() -> dict:
        line = java.stdout.readline()
        while not line.startswith("{"):
            assert line, "the Java process ended early"
            line = java.stdout.readline()
        return json.loads(line)

    assert answer() == {"ready": True}

    def run(step: str) -> None:
        java.stdin.write(step + "\n")
        java.stdin.flush()
        assert answer()["step"] == step

    try:
        return _measure(STEPS, run, requests, repeats)
    finally:
        java.stdin.write("end\n")
        java.stdin.close()
        assert java.wait(timeout=120) == 0


def _measure(steps: List[str], run: Callable[[str], object], requests: Requests, repeats: int) -> Dict[str, Measured]:
    found = {}
    for step in steps:
        requests.reset()
        started = time.perf_counter()
        run(step)
        seconds = time.perf_counter() - started
        counted, sent = requests.counts()
        found[step] = Measured(counted, sent, [seconds])
    for _ in range(repeats):
        for step in TIMED_STEPS:
            started = time.perf_counter()
            run(step)
            found[step].seconds.append(time.perf_counter() - started)
    for step in TIMED_STEPS:  # the counted first run paid for the JIT: wall time from the later ones
        found[step].seconds = found[step].seconds[1:] or found[step].seconds
    return found


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> Tuple[List[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    classpath = java_classpath()
    measured: Dict[str, Dict[str, Dict[str, Measured]]] = {}
    gcs = FakeGcs(work / "gcs.log", bucket="bench", record=work / "gcs-requests.jsonl")
    azure = Azurite(work / "azurite.log", container="bench", record=work / "azure-requests.jsonl")
    hdfs = HdfsCluster(work / "hdfs")
    try:
        azure_conf = {**AZURE_SETTINGS, **azure.spark_conf(),
                      "spark.hadoop.fs.azure.createRemoteFileSystemDuringInitialization": "true"}
        stores = {
            "GCS": (gcs.uri, {**GCS_SETTINGS, **gcs.spark_conf()}, ProxyRecord(work / "gcs-requests.jsonl")),
            "Azure": (azure.uri, azure_conf, ProxyRecord(work / "azure-requests.jsonl")),
            "HDFS": (lambda p: f"{hdfs.uri}/{p}", {}, NameNodeRpcs(hdfs)),
        }
        for store, (uri, conf, requests) in stores.items():
            for key, value in conf.items():
                spark.conf.set(key.removeprefix("spark.hadoop."), value)
            settings = {f"hadoop.{k.removeprefix('spark.hadoop.')}": v for k, v in conf.items()}
            measured[store] = {"ours": our_steps(spark, uri("ours"), requests, repeats),
                               "java": java_steps(classpath, uri("java"), settings, requests, repeats)}
    finally:
        for server in (gcs, azure, hdfs):
            server.stop()
    return report(measured)


def report(measured: Dict[str, Dict[str, Dict[str, Measured]]]) -> Tuple[List[Comparison], dict]:
    results, checks = [], []
    for store, sides in measured.items():
        ours, java = sides["ours"], sides["java"]
        for step in TIMED_STEPS:
            results.append(Comparison(f"{step} ({store})", 1, "Paimon Java", "paimon-spark", java[step].seconds,
                                      ours[step].seconds, goal=None, unit="operations",
                                      description=f"wall time of one {step} on {store}, each engine in its own JVM"))
        for step in STEPS:
            o, j = ours[step], java[step]
            kinds = sorted(set(o.requests) | set(j.requests), key=lambda k: -(o.requests[k] + j.requests[k]))
            detail = "; ".join(f"{k} {o.requests[k]}/{j.requests[k]}" for k in kinds)
            data = f", bytes {o.bytes:,} / {j.bytes:,}" if store != "HDFS" else ""
            checks.append(Check(f"{store}: requests per {step}", f"ours {sum(o.requests.values())}, Java "
                                f"{sum(j.requests.values())}{data}", "no more than Java's",
                                sum(o.requests.values()) <= sum(j.requests.values()),
                                f"ours/Java by kind: {detail}; wall {statistics.median(o.seconds):.2f} s / "
                                f"{statistics.median(j.seconds):.2f} s"))
    notes = {"checks": checks,
             "requests": {store: {side: {s: dict(m.requests) for s, m in steps.items()} for side, steps in sides.items()}
                          for store, sides in measured.items()}}
    return results, notes
