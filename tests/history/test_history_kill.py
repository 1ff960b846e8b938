"""SIGKILL in the middle of snapshot expiry and of rollback, at several points of each.

A table gets many commits (appends and overwrites over eight partitions, written with pypaimon
because it commits in a tenth of the time a Spark statement takes; the engine under test only
expires and rolls back). A separate process (tests/support/history_worker.py, its own SparkSession on the
same warehouse) runs the procedure under strace, which delays every unlink by DELAY_MS so that each
phase lasts long enough to be hit, and this process kills it, JVM and all, with SIGKILL as soon as
inotify reports the n-th deletion of the kind that marks a phase: a data file, a manifest, a
snapshot file. The procedure must not have finished by then.

After each kill:
- every snapshot that is to stay (for expiry: those at or after the first one kept; for rollback:
  every snapshot left, since rollback deletes newest first and deletes files last) and every tag
  reads the model's rows through pypaimon, and through our VERSION AS OF for the latest, the tags
  and a spread of the others; no file they reference is missing.
  Snapshots that were being expired may have lost files already: expiry deletes files before
  snapshot files, as Paimon does, so that running it again finishes the job.
Finally the procedure runs again in the test's own session and must finish the job:
- expiry: exactly the expected snapshots, every one and every tag reads, and no data or manifest
  file is left that nothing references, with no orphan cleanup needed;
- rollback: the expected snapshots and tags; what the killed runs had already unlinked from the
  history is orphaned, so after every file's modification time is moved back, remove_orphan_files
  must remove exactly that, and leave nothing unreferenced and nothing referenced missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime as dt
import os
import select
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest

import history_files
from conftest import SUPPORT, table_dir
from deploy_util import kill_group

WORKER = str(SUPPORT / "history_worker.py")
PARTITIONS = 8
COMMITS = 20
DELAY_MS = 20
IN_DELETE = 0x200

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("strace") is None,
                                reason="needs Linux inotify and strace (to pace the worker's deletions)")


class Inotify:
    """Deletion events under some directories (Linux inotify through libc)."""

    def __init__(self):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, ctypes.get_errno()

    def watch(self, directory: Path) -> None:
        assert self.libc.inotify_add_watch(self.fd, str(directory).encode(), IN_DELETE) >= 0, ctypes.get_errno()

    def wait_for(self, prefix: str, count: int, alive, timeout: float = 300) -> str:
        """Blocks until the count-th file whose name starts with `prefix` is deleted; returns its name."""
        deadline = time.time() + timeout
        while time.time() < deadline and alive():
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            buf = os.read(self.fd, 65536)
            offset = 0
            while offset < len(buf):
                _wd, _mask, _cookie, length = struct.unpack_from("iIII", buf, offset)
                name = buf[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if name.startswith(prefix):
                    count -= 1
                    if count == 0:
                        return name
        raise AssertionError(f"too few files named {prefix}* were deleted (worker running: {alive()})")

    def close(self) -> None:
        os.close(self.fd)


class Worker:
    """A worker process, started ahead (its SparkSession takes a while) and waiting to run `sql`."""

    def __init__(self, warehouse: Path, tmp: Path, name: str):
        self.ready, self.go, self.done = tmp / f"{name}.ready", tmp / f"{name}.go", tmp / f"{name}.done"
        paced = ["strace", "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=unlink,unlinkat",
                 "-e", f"inject=unlink,unlinkat:delay_enter={DELAY_MS * 1000}"]
        self.sql_file = tmp / f"{name}.sql"
        self.proc = subprocess.Popen(
            paced + [sys.executable, WORKER, str(warehouse), str(self.ready), str(self.go), str(self.done),
                     str(self.sql_file)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def kill(self) -> str:
        return kill_group(self.proc, "worker")

    def run_and_kill(self, sql: str, watch: list[Path], prefix: str, count: int) -> str:
        """Runs `sql` and SIGKILLs the worker at the count-th deletion of a `prefix`* file in `watch`."""
        try:
            deadline = time.time() + 300
            while not self.ready.exists():
                assert self.proc.poll() is None, self.proc.communicate()[0][-3000:]
                assert time.time() < deadline, "the worker did not start"
                time.sleep(0.05)
            ino = Inotify()
            try:
                for d in watch:
                    ino.watch(d)
                self.sql_file.write_text(sql)
                self.go.touch()
                deleted = ino.wait_for(prefix, count, alive=lambda: self.proc.poll() is None and not self.done.exists())
            finally:
                ino.close()
        finally:
            out = self.kill()
        assert not self.done.exists(), f"the procedure finished before the kill: {out[-2000:]}"
        return deleted


@pytest.fixture
def workers(warehouse, tmp_path):
    """Starts n workers at once, while the test builds its table; kills whatever is left at the end."""
    started = []

    def start(n: int) -> list[Worker]:
        started.extend(Worker(warehouse, tmp_path, f"w{len(started)}") for _ in range(n))
        return started[-n:]

    yield start
    for w in started:
        w.kill()


def bucket_dirs(table: Path) -> list[Path]:
    return sorted(table.glob("p=*/bucket-*"))


def build(spark, oracle, warehouse: Path, name: str) -> dict[int, list]:
    """A table with COMMITS commits over PARTITIONS partitions; returns the rows of every snapshot."""
    spark.sql(f"CREATE TABLE paimon.default.{name} (p INT, k INT, v STRING) PARTITIONED BY (p)")
    table = oracle.get_table(f"default.{name}")
    model, current = {}, []
    for i in range(1, COMMITS + 1):
        new = [(p, i * 100 + p, f"c{i}") for p in range(PARTITIONS)]
        builder = table.new_batch_write_builder()
        overwrite = i % 3 == 0
        if overwrite:
            builder = builder.overwrite()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.table({"p": pa.array([r[0] for r in new], pa.int32()),
                                    "k": pa.array([r[1] for r in new], pa.int32()),
                                    "v": pa.array([r[2] for r in new])}))
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()
        current = sorted(new if overwrite else current + new)
        model[i] = current
    assert history_files.snapshot_ids(table_dir(warehouse, name)) == list(range(1, COMMITS + 1))
    return model


def oracle_rows(oracle, name: str, options: dict | None = None) -> list:
    table = oracle.get_table(f"default.{name}")
    if options:
        table = table.copy(options)
    builder = table.new_read_builder()
    return sorted((r["p"], r["k"], r["v"]) for r in
                  builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist())


def check_readable(spark, oracle, name: str, snapshots: dict[int, list], tags: dict[str, list]) -> None:
    """Every given snapshot and tag reads its rows through pypaimon; the latest, the tags and a spread of
    the others through our VERSION AS OF (in one query)."""
    ids = sorted(snapshots)
    assert oracle_rows(oracle, name) == snapshots[ids[-1]]
    for i in ids:
        assert oracle_rows(oracle, name, {"scan.snapshot-id": str(i)}) == snapshots[i], i
    for t, expected in tags.items():
        assert oracle_rows(oracle, name, {"scan.tag-name": t}) == expected, t
    spread = sorted({ids[0], ids[-1], *ids[:: max(1, len(ids) // 4)]})
    versions = [(str(i), str(i), snapshots[i]) for i in spread] + [(t, f"'{t}'", rows) for t, rows in tags.items()]
    query = " UNION ALL ".join(f"SELECT '{label}' AS __v, p, k, v FROM paimon.default.{name} VERSION AS OF {v}"
                               for label, v, _ in versions)
    got: dict[str, list] = {label: [] for label, _, _ in versions}
    for r in spark.sql(query).collect():
        got[r[0]].append(tuple(r)[1:])
    for label, _, expected in versions:
        assert sorted(got[label]) == expected, label
    assert sorted(r[0] for r in spark.sql(f"SELECT * FROM paimon.default.{name}").collect()) == \
        sorted(r[0] for r in snapshots[ids[-1]])


def missing_of(table: Path, keep) -> set[str]:
    """Files the kept snapshots and tags (keep(branch, 'snapshot-N' | 'tag-x')) reference that are gone."""
    refs = history_files.References()
    for branch, entry, snap in history_files.history(table):
        if keep(branch, entry):
            one = history_files.snapshot_files(table, snap, ["p"])
            refs.metadata |= one.metadata
            refs.live |= one.live
    return (refs.metadata | refs.live) - history_files.files_on_disk(table)


def future(spark, seconds: float) -> str:
    """A timestamp `seconds` from now, as procedures read it: in the session time zone."""
    zone = ZoneInfo(spark.conf.get("spark.sql.session.timeZone"))
    return (dt.datetime.now(zone) + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")


def test_expiry_killed_at_each_phase_is_finished_by_a_rerun(spark, oracle, warehouse, workers):
    name = "kexp"
    pool = workers(3)
    model = build(spark, oracle, warehouse, name)
    table = table_dir(warehouse, name)
    # Tags inside the expired range keep their files through every phase.
    tags = {"t6": 6, "t12": 12}
    for t, i in tags.items():
        spark.sql(f"CALL paimon.sys.create_tag(table => 'default.{name}', tag => '{t}', snapshot => {i})")
    tag_rows = {t: model[i] for t, i in tags.items()}
    keep = 5
    first_kept = COMMITS - keep + 1
    # older_than names a fixed moment a few minutes ahead, so every run expires the same range.
    sql = (f"CALL paimon.sys.expire_snapshots(table => 'default.{name}', retain_max => {keep}, "
           f"retain_min => {keep}, older_than => '{future(spark, 600)}')")

    def kept(branch, entry):
        return entry.startswith("tag-") or int(entry.split("-")[1]) >= first_kept

    # (1) data files of the expired range, (2) their manifests, (3) the snapshot files.
    phases = [(bucket_dirs(table), "data-", 5), ([table / "manifest"], "manifest", 3),
              ([table / "snapshot"], "snapshot-", 3)]
    for worker, (watch, prefix, count) in zip(pool, phases):
        worker.run_and_kill(sql, watch, prefix, count)
        ids = history_files.snapshot_ids(table)
        assert ids[-keep:] == list(range(first_kept, COMMITS + 1)), ids
        assert not missing_of(table, kept)
        check_readable(spark, oracle, name, {i: model[i] for i in ids if i >= first_kept}, tag_rows)
    assert len(history_files.snapshot_ids(table)) > keep, "the last kill came after every snapshot was gone"

    spark.sql(sql).collect()
    assert history_files.snapshot_ids(table) == list(range(first_kept, COMMITS + 1))
    assert sorted(r[0] for r in spark.sql(f"SELECT snapshot_id FROM paimon.default.`{name}$snapshots`").collect()) \
        == list(range(first_kept, COMMITS + 1))
    check_readable(spark, oracle, name, {i: model[i] for i in range(first_kept, COMMITS + 1)}, tag_rows)
    files = history_files.check(table, ["p"])
    assert not files.missing
    assert not files.garbage, f"a rerun left unreferenced files: {sorted(files.garbage)}"


def test_rollback_killed_at_each_phase_is_finished_by_a_rerun_and_orphan_cleanup(spark, oracle, warehouse, workers):
    name = "kroll"
    pool = workers(2)
    model = build(spark, oracle, warehouse, name)
    table = table_dir(warehouse, name)
    target = 8
    tags = {"t5": 5, "t8": 8, "t14": 14, "t18": 18}
    for t, i in tags.items():
        spark.sql(f"CALL paimon.sys.create_tag(table => 'default.{name}', tag => '{t}', snapshot => {i})")
    sql = f"CALL paimon.sys.rollback(table => 'default.{name}', version => '{target}')"

    # (1) while later snapshots are deleted, newest first; (2) while their files are.
    phases = [([table / "snapshot"], "snapshot-", 3), (bucket_dirs(table), "data-", 5)]
    for worker, (watch, prefix, count) in zip(pool, phases):
        worker.run_and_kill(sql, watch, prefix, count)
        ids = history_files.snapshot_ids(table)
        assert ids == list(range(1, ids[-1] + 1)) and ids[-1] >= target, ids
        left_tags = {t: model[i] for t, i in tags.items() if (table / "tag" / f"tag-{t}").exists()}
        assert {"t5", "t8"} <= set(left_tags)
        assert not missing_of(table, lambda b, e: True)
        check_readable(spark, oracle, name, {i: model[i] for i in ids}, left_tags)

    spark.sql(sql).collect()
    assert history_files.snapshot_ids(table) == list(range(1, target + 1))
    tag_rows = {"t5": model[5], "t8": model[8]}
    assert {r[0] for r in spark.sql(f"SELECT tag_name FROM paimon.default.`{name}$tags`").collect()} == set(tag_rows)
    check_readable(spark, oracle, name, {i: model[i] for i in range(1, target + 1)}, tag_rows)
    before = history_files.check(table, ["p"])
    assert not before.missing
    history_files.backdate(table, 7200)
    out = spark.sql(f"CALL paimon.sys.remove_orphan_files(table => 'default.{name}', "
                    f"older_than => '{future(spark, -3600)}')").collect()
    assert out[0].deletedFileCount == len(before.orphans)
    after = history_files.check(table, ["p"])
    assert not after.missing and not after.garbage, sorted(after.garbage)
    # Nothing the killed runs left is mentioned by what stays: orphan cleanup took all of it.
    assert before.garbage == before.orphans
    check_readable(spark, oracle, name, {i: model[i] for i in range(1, target + 1)}, tag_rows)
