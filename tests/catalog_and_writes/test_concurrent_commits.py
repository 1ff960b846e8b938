"""Separate OS processes committing to one table at once, and a writer killed mid-write, on local disk (where commits
are published by hard link). Four processes appending at once are in tests/object_stores/test_s3_concurrency.py."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import SUPPORT, commit_kinds, oracle_rows, table_dir

WRITER = str(SUPPORT / "concurrent_writer.py")


def start_writer(warehouse, table, writer_id, commits, go_file, rows_per_commit=1):
    return subprocess.Popen(
        [sys.executable, WRITER, str(warehouse), table, str(writer_id), str(commits), str(go_file),
         str(rows_per_commit)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def wait_ready(go_file: Path, writers: int, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while len(list(go_file.parent.glob(go_file.name + ".ready-*"))) < writers:
        assert time.time() < deadline, "writers did not start"
        time.sleep(0.1)


def test_two_processes_upsert_and_compact_one_primary_key_table(spark, warehouse, tmp_path, oracle):
    # A trigger of 2 makes nearly every write compact: inline compactions race each other and the
    # other writer's appends. Appends always land; a compaction that loses is skipped.
    spark.sql("CREATE TABLE paimon.default.pkconc (writer INT, seq BIGINT) TBLPROPERTIES ('primary-key' = "
              "'writer,seq', 'bucket' = '2', 'num-sorted-run.compaction-trigger' = '2', 'commit.max-retries' = '100')")
    go = tmp_path / "go"
    procs = [start_writer(warehouse, "paimon.default.pkconc", w, 6, go, rows_per_commit=3) for w in (1, 2)]
    wait_ready(go, 2)
    go.touch()
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, out[-3000:]
    kinds = commit_kinds(warehouse, "pkconc")
    assert kinds.count("APPEND") == 12 and kinds.count("COMPACT") >= 1
    expected = sorted((w, i * 1000000 + r) for w in (1, 2) for i in range(6) for r in range(3))
    assert sorted((r.writer, r.seq) for r in spark.table("paimon.default.pkconc").collect()) == expected
    assert oracle_rows(oracle, "pkconc") == expected


def test_a_killed_writer_leaves_the_last_snapshot_readable(spark, warehouse, tmp_path):
    spark.sql("CREATE TABLE paimon.default.killed (writer INT, seq BIGINT)")
    spark.sql("INSERT INTO paimon.default.killed VALUES (0, 0), (0, 1)")
    go = tmp_path / "go"
    go.touch()
    proc = start_writer(warehouse, "paimon.default.killed", 9, 1000, go, rows_per_commit=20000)
    # Let it write and commit for a while, then kill it without warning, mid-write or mid-commit.
    table = table_dir(warehouse, "killed")
    deadline = time.time() + 120
    while len(list((table / "snapshot").glob("snapshot-*"))) < 3 and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1.3)
    # The writer's JVM is a child of its Python process: kill the whole process group at once.
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    deadline = time.time() + 30
    while subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True).returncode == 0:
        assert time.time() < deadline, "the killed writer's JVM is still running"
        time.sleep(0.2)
    ids = sorted(int(f.name.split("-")[1]) for f in (table / "snapshot").glob("snapshot-*"))
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 3
    got = spark.table("paimon.default.killed").collect()
    # Every APPEND after the first is one of the writer's commits; COMPACT snapshots (inline
    # small-file compaction, which the kill may also have hit) add no rows.
    assert len(got) == 2 + (commit_kinds(warehouse, "killed").count("APPEND") - 1) * 20000
    assert sorted((r.writer, r.seq) for r in got if r.writer == 0) == [(0, 0), (0, 1)]
    spark.sql("INSERT INTO paimon.default.killed VALUES (0, 2)")
    assert spark.table("paimon.default.killed").count() == len(got) + 1
