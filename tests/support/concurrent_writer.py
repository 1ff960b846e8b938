"""Writer processes for the concurrency tests and the object-store bench, and the pool that drives them.

A writer (this file run as a script) starts its SparkSession once and then runs the jobs its pool gives
it, one commit per statement, until told to stop. A session takes seconds to start, so one set of
writers serves a module's races in turn, and writers given the same job start it within a poll (50 ms)
of each other.

usage: concurrent_writer.py WAREHOUSE WRITER_ID WORKDIR
WAREHOUSE is a local path or an object store's location, s3a://, gs:// or abfs:// (the store's settings then come
from the environment).
With PAIMON_TEST_METASTORE set (JSON: uri, options) the writers' catalog is a Hive catalog over that metastore;
with options alone (metastore=rest ...) a REST catalog, whose name on its server WAREHOUSE is.
The pool writes job N as WORKDIR/job-N (JSON: the table, commits, rows per commit and which writers run
it; `null` to stop); each writer answers it with WORKDIR/done-N-ID (JSON: the commits it made, and the
error that ended the job early, if one did).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Iterable, Mapping, Optional

from deploy_util import kill_group

POLL = 0.05


def _publish(path: Path, value: object) -> None:
    """Writes a file that is whole when it appears (the reader polls for it)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value))
    os.replace(tmp, path)


class WriterPool:
    """Writer processes started ahead and given jobs in turn; a job's writers start it together."""

    def __init__(self, warehouse: str, writers: Iterable[int], workdir: Path,
                 env: Optional[Mapping[str, str]] = None) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.procs = {w: subprocess.Popen([sys.executable, __file__, warehouse, str(w), str(workdir)],
                                          env=env, stdout=(workdir / f"writer-{w}.log").open("w"),
                                          stderr=subprocess.STDOUT, start_new_session=True) for w in writers}
        self.jobs = 0

    def log(self, writer: int) -> str:
        return (self.workdir / f"writer-{writer}.log").read_text()[-3000:]

    def _wait(self, paths: Dict[int, Path], what: str, timeout: float) -> None:
        deadline = time.time() + timeout
        while not all(p.exists() for p in paths.values()):
            for w in paths:
                assert self.procs[w].poll() is None, f"writer {w} ended: {self.log(w)}"
            assert time.time() < deadline, f"writers did not {what} within {timeout} s"
            time.sleep(POLL)

    def start(self, table: str, commits: int, rows: int = 1, writers: Optional[Iterable[int]] = None,
              timeout: float = 240, hold_lock: Optional[list[str]] = None) -> int:
        """Gives every writer (or those named) a job, once all are up; returns the job's number. With
        `hold_lock` ([db, table]) the job is to take that table's metastore lock and keep it."""
        self._wait({w: self.workdir / f"ready-{w}" for w in self.procs}, "start", timeout)
        job = self.jobs
        self.jobs += 1
        spec = {"table": table, "commits": commits, "rows": rows, "writers": sorted(writers or self.procs)}
        _publish(self.workdir / f"job-{job}", {**spec, **({"hold_lock": hold_lock} if hold_lock else {})})
        return job

    def finish(self, job: int, timeout: float = 600) -> Dict[int, dict]:
        """Waits for every writer to answer the job; returns each one's answer (committed, error)."""
        done = {w: self.workdir / f"done-{job}-{w}" for w in self.procs}
        self._wait(done, f"finish job {job}", timeout)
        return {w: json.loads(p.read_text()) for w, p in done.items()}

    def run(self, table: str, commits: int, rows: int = 1, writers: Optional[Iterable[int]] = None
            ) -> Dict[int, int]:
        """Runs a job that must succeed; returns the commits each writer made."""
        answers = self.finish(self.start(table, commits, rows, writers))
        assert all(a["error"] is None for a in answers.values()), answers
        return {w: a["committed"] for w, a in answers.items()}

    def kill(self, writer: int) -> None:
        """SIGKILLs a writer, JVM and all (its JVM is a child of its Python process: the whole group)."""
        kill_group(self.procs.pop(writer), f"writer {writer}")

    def close(self) -> None:
        _publish(self.workdir / f"job-{self.jobs}", None)
        for w in list(self.procs):
            try:
                self.procs[w].wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill(w)


def race_through_catalog(spark, table: str, warehouse: str, options: Mapping[str, str], workdir: Path) -> None:
    """Two writer processes over the catalog `options` (a REST or JDBC catalog; its name on a server, or its
    `warehouse`) append three commits each to `table` (write-only) at once: all six land, once each, in
    snapshots 1 to 6, and `spark` reads every row."""
    env = dict(os.environ, PAIMON_TEST_METASTORE=json.dumps({"options": dict(options)}))
    pool = WriterPool(warehouse, (1, 2), workdir, env=env)
    try:
        assert pool.run(table, 3) == {1: 3, 2: 3}
    finally:
        pool.close()
    got = sorted(tuple(r) for r in spark.sql(f"SELECT writer, seq FROM {table}").collect())
    assert got == sorted((w, i * 1000000) for w in (1, 2) for i in range(3))
    database, name = table.rsplit(".", 1)
    snapshots = spark.sql(f"SELECT snapshot_id, commit_user, commit_identifier FROM {database}.`{name}$snapshots`").collect()
    assert sorted(r[0] for r in snapshots) == list(range(1, 7))
    assert len({(r[1], r[2]) for r in snapshots}) == 6


def race_then_kill(spark, catalog: str, warehouse: str, env: Mapping[str, str], workdir: Path) -> None:
    """Three writer processes over `warehouse` (an object store's or HDFS's; its settings in `env`), whose tables
    `spark` reads through `catalog`, append three commits each to one table at once (write-only): all nine land,
    once each, in snapshots 1 to 9. Then one of them, upserting a primary-key table that compacts every other
    commit, is SIGKILLed after the table's fourth snapshot: the table reads, with every row of every commit that
    landed, and its snapshot ids have no gap."""
    from collections import Counter

    spark.sql(f"CREATE TABLE {catalog}.default.conc (writer INT, seq BIGINT) TBLPROPERTIES "
              "('commit.max-retries' = '200', 'write-only' = 'true')")
    spark.sql(f"CREATE TABLE {catalog}.default.killed (writer INT, seq BIGINT) TBLPROPERTIES ('primary-key' = "
              "'writer,seq', 'bucket' = '1', 'num-sorted-run.compaction-trigger' = '2')")

    def snapshots(table: str) -> list:
        return spark.sql(f"SELECT snapshot_id, commit_user, commit_identifier, commit_kind FROM "
                         f"{catalog}.default.`{table}$snapshots`").collect()

    pool = WriterPool(warehouse, range(1, 4), workdir, env=env)
    try:
        assert pool.run("paimon.default.conc", 3) == {w: 3 for w in range(1, 4)}
        found = snapshots("conc")
        assert sorted(s.snapshot_id for s in found) == list(range(1, 10))
        assert len({(s.commit_user, s.commit_identifier) for s in found}) == 9
        got = sorted((r.writer, r.seq) for r in spark.table(f"{catalog}.default.conc").collect())
        assert got == sorted((w, i * 1000000) for w in range(1, 4) for i in range(3))

        pool.start("paimon.default.killed", 1000, rows=5000, writers=(3,))
        deadline = time.time() + 240
        while len(snapshots("killed")) < 4 and time.time() < deadline:
            time.sleep(0.5)
        pool.kill(3)
    finally:
        pool.close()
    found = snapshots("killed")
    assert len(found) >= 4
    appended = Counter(s.commit_kind for s in found)["APPEND"]
    got = sorted((r.writer, r.seq) for r in spark.table(f"{catalog}.default.killed").collect())
    # Every committed row is there; a commit the kill interrupted either landed whole or not at all.
    assert got == sorted((3, i * 1000000 + r) for i in range(appended) for r in range(5000))
    assert sorted(s.snapshot_id for s in found) == list(range(1, len(found) + 1))


def _next_job(workdir: Path, job: int) -> Optional[dict]:
    path = workdir / f"job-{job}"
    while not path.exists():
        time.sleep(POLL)
    return json.loads(path.read_text())


def _hold_metastore_lock(spark, uri: str, db: str, table: str) -> None:
    """Takes the metastore's EXCLUSIVE table lock as Paimon's HiveCatalogLock requests it, and keeps it."""
    jvm = spark.sparkContext._jvm
    api = jvm.org.apache.hadoop.hive.metastore.api
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", uri)
    component = api.LockComponent(api.LockType.EXCLUSIVE, api.LockLevel.TABLE, db)
    component.setTablename(table)
    component.unsetOperationType()
    client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
    response = client.lock(api.LockRequest(jvm.java.util.Collections.singletonList(component), "holder", "localhost"))
    assert response.getState().toString() == "ACQUIRED", response


def main() -> None:
    warehouse, writer, workdir = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from conftest import new_session

    # Writers through a metastore catalog are told its address and options by their environment.
    metastore = json.loads(os.environ.get("PAIMON_TEST_METASTORE", "null")) or {}
    rest = (metastore.get("options") or {}).get("metastore") == "rest"
    spark = new_session(warehouse if "://" in warehouse or rest else Path(warehouse), master="local[1]",
                        metastore_uri=metastore.get("uri"), catalog_options=metastore.get("options"))
    (workdir / f"ready-{writer}").touch()
    job = 0
    while (spec := _next_job(workdir, job)) is not None:
        committed, error = 0, None
        if writer in spec["writers"] and "hold_lock" in spec:
            _hold_metastore_lock(spark, metastore["uri"], *spec["hold_lock"])
            _publish(workdir / f"done-{job}-{writer}", {"committed": 0, "error": None})
            time.sleep(3600)  # until killed, holding the lock
        if writer in spec["writers"]:
            try:
                for i in range(spec["commits"]):
                    spark.range(spec["rows"]).selectExpr(f"{writer} AS writer", f"{i} * 1000000 + id AS seq"
                                                         ).writeTo(spec["table"]).append()
                    committed += 1
            except Exception as e:  # the job's answer reports it: a failed commit is an outcome, not a crash
                error = str(e)[-3000:]
        _publish(workdir / f"done-{job}-{writer}", {"committed": committed, "error": error})
        job += 1
    spark.stop()


if __name__ == "__main__":
    main()
