"""A warehouse on S3 (a local moto server): the requests each kind of commit makes, ours against Apache
Paimon's Java core (`paimon-s3`) on the same store; what two racing writers lose, ours against Java's
filesystem catalog (which commits by rename); commit latency and full-scan throughput on S3 against
local disk in the same session.

Requests are counted by the store (moto's request recorder), so both engines are counted the same way.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path

from pyspark.sql import SparkSession

from java_writer import java_classpath
from harness import Check, Comparison, timed, timed_with_cpu
from storage import STEPS, java_steps, our_steps

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from concurrent_writer import WriterPool  # noqa: E402  (the tests' writer processes)
from s3_store import MotoS3  # noqa: E402  (the tests' moto server, one definition)

NAME = "object_store"
TITLE = "Object stores: requests per commit, racing writers, latency and scans on S3 (moto) vs local disk"
KINDS = ["PUT", "COPY", "GET", "HEAD", "LIST", "DELETE", "OTHER"]
RACE_WRITERS, RACE_COMMITS = 2, 20
LATENCY_COMMITS = 20


class Requests:
    """The store's request log (moto's recorder), classified by S3 operation."""

    def __init__(self, moto: MotoS3) -> None:
        self.endpoint = moto.endpoint
        self._call("start-recording", "POST")

    def _call(self, action: str, method: str = "GET") -> str:
        request = urllib.request.Request(f"{self.endpoint}/moto-api/recorder/{action}", method=method)
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read().decode()

    def reset(self) -> None:
        self._call("reset-recording", "POST")

    def counts(self) -> tuple[Counter, int]:
        """Requests by kind; moto's recorder keeps no sizes (0 bytes)."""
        found: Counter = Counter()
        for line in self._call("download-recording").splitlines():
            if line.strip():
                found[self.kind(json.loads(line))] += 1
        return found, 0

    @staticmethod
    def kind(entry: dict) -> str:
        method, url = entry["method"], entry["url"]
        headers = {k.lower() for k in entry["headers"]}
        path, _, query = url.split("://", 1)[-1].partition("/")[2].partition("?")
        if method == "PUT":
            return "COPY" if "x-amz-copy-source" in headers else "PUT"
        if method == "GET":
            return "LIST" if "list-type" in query or "/" not in path.rstrip("/") else "GET"
        if method in ("HEAD", "DELETE"):
            return method
        return "DELETE" if method == "POST" and query.startswith("delete") else "OTHER"


def our_race(spark: SparkSession, moto: MotoS3, warehouse: str, work: Path) -> dict:
    """Two writer processes (the tests' concurrent writers), each appending one-row commits at once."""
    table = f"paimon_path.`{warehouse}/race`"
    spark.sql(f"CREATE TABLE {table} (writer INT, seq BIGINT) TBLPROPERTIES ('commit.max-retries' = '200', "
              "'write-only' = 'true')")
    writers = WriterPool(warehouse, range(1, RACE_WRITERS + 1), work / "writers", env=moto.worker_env())
    try:
        answers = writers.finish(writers.start(table, RACE_COMMITS))
    finally:
        writers.close()
    return {"reported_ok": sum(a["committed"] for a in answers.values()), "visible_rows": spark.table(table).count()}


def java_options(moto: MotoS3) -> dict[str, str]:
    """Paimon's catalog options for its own S3 file I/O (paimon-s3) on this server."""
    return {"s3.endpoint": moto.endpoint, "s3.endpoint.region": "us-east-1", "s3.access-key": "test",
            "s3.secret-key": "test", "s3.path-style-access": "true"}


def java_race(classpath: str, moto: MotoS3, warehouse: str) -> dict:
    out = subprocess.run(["java", "-cp", classpath, "paimonspark.bench.JavaStoreCommits", warehouse, "race",
                          str(RACE_WRITERS), str(RACE_COMMITS), *(f"{k}={v}" for k, v in java_options(moto).items())],
                         capture_output=True, text=True, check=True)
    return json.loads(next(line for line in out.stdout.splitlines() if line.startswith("{")))


def latency_and_scan(spark: SparkSession, rows: int, repeats: int, s3_root: str, local_root: str
                     ) -> tuple[list[Comparison], dict]:
    """One-row commits and a full scan, the same on both warehouses, interleaved after a warm-up of each
    (so neither is charged the JIT's first runs); CPU seconds beside wall time."""
    places = {"local disk": local_root, "S3 (moto)": s3_root}
    data = spark.range(rows).selectExpr("id", "id % 97 AS k", "CAST(id * 7 AS STRING) AS s")
    for root in places.values():
        spark.sql(f"CREATE TABLE paimon_path.`{root}/commits` (id INT)")
        data.write.format("paimon").save(f"{root}/scan")

    def commit(root: str, i: int) -> float:
        return timed(spark, lambda: spark.sql(f"INSERT INTO paimon_path.`{root}/commits` VALUES ({i})"))

    def scan(root: str) -> tuple[float, float]:
        return timed_with_cpu(spark, lambda: spark.table(f"paimon_path.`{root}/scan`")
                              .selectExpr("sum(k)", "max(s)").collect())

    for root in places.values():  # warm-up
        [commit(root, -1) for _ in range(3)]
        scan(root)
    commits: dict[str, list[float]] = {w: [] for w in places}
    scans: dict[str, list[tuple[float, float]]] = {w: [] for w in places}
    for i in range(LATENCY_COMMITS):
        for where, root in places.items():
            commits[where].append(commit(root, i))
    for _ in range(repeats):
        for where, root in places.items():
            scans[where].append(scan(root))
    local, s3 = "local disk", "S3 (moto)"
    results = [
        Comparison("commit", 1, local, s3, commits[local], commits[s3], goal=None, unit="commits",
                   description="one-row INSERTs into an append table, one commit each: the moto server is a "
                               "Python process on the same 2 cores, so this bounds the requests' cost, not S3's"),
        Comparison("full scan", rows, local, s3, [w for w, _ in scans[local]], [w for w, _ in scans[s3]], goal=None,
                   description="sum and max over every row of a 3-column append table"),
    ]
    notes = {"commit_median_s": {w: round(statistics.median(c), 3) for w, c in commits.items()},
             "scan_cpu_s": {w: round(statistics.median(c for _, c in s), 2) for w, s in scans.items()}}
    return results, notes


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    work.mkdir(parents=True, exist_ok=True)
    classpath = java_classpath()
    moto = MotoS3(work / "moto.log")
    try:
        bucket = moto.create_bucket("bench-object-store")
        for key, value in moto.spark_conf().items():
            spark.conf.set(key.removeprefix("spark.hadoop."), value)
        requests = Requests(moto)
        ours = {s: m.requests for s, m in our_steps(spark, f"s3a://{bucket}/ours", requests, 0).items()}
        java = {s: m.requests for s, m in
                java_steps(classpath, f"s3://{bucket}/java", java_options(moto), requests, 0).items()}
        requests.reset()
        races = {"ours": our_race(spark, moto, f"s3a://{bucket}/race", work),
                 "java": java_race(classpath, moto, f"s3://{bucket}/race-java")}
        requests.reset()
        results, notes = latency_and_scan(spark, rows, repeats, f"s3a://{bucket}/perf", str(work / "local"))
    finally:
        moto.stop()
    expected = RACE_WRITERS * RACE_COMMITS
    checks = [Check(f"requests per commit: {step}", f"ours {sum(ours[step].values())}, Java {sum(java[step].values())}",
                    "no more than Java's", sum(ours[step].values()) <= sum(java[step].values()),
                    "; ".join(f"{k} {ours[step][k]}/{java[step][k]}" for k in KINDS if ours[step][k] or java[step][k]))
              for step in STEPS]
    race = f"{RACE_WRITERS} writers x {RACE_COMMITS} one-row commits to one table at once"
    ours_race, java_race_result = races["ours"], races["java"]
    checks += [
        Check("racing writers: ours", f"{ours_race['reported_ok']} commits reported, {ours_race['visible_rows']} rows "
              "visible", f"{expected} and {expected}", ours_race["reported_ok"] == ours_race["visible_rows"] == expected,
              race + ", committing by conditional write"),
        # The baseline: what committing by rename loses on an object store, the reason for the design.
        Check("racing writers: Java (baseline)", f"{java_race_result['reported_ok']} commits reported, "
              f"{java_race_result['visible_rows']} rows visible: "
              f"{java_race_result['reported_ok'] - java_race_result['visible_rows']} commits lost",
              "reported", True, race + ", through Paimon's filesystem catalog, which commits by write-then-rename")]
    notes.update({"checks": checks, "requests": {"ours": {s: dict(c) for s, c in ours.items()},
                                                 "java": {s: dict(c) for s, c in java.items()}},
                  "race": races})
    return results, notes
