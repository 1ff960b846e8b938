"""A writer killed mid-write on local disk (where commits are published by hard link) leaves the table readable.
Writer processes racing for the same snapshot ids (appends, and upserts with compaction) are in
tests/object_stores/test_s3_concurrency.py; the same race on local disk, made deterministic, in the Scala
TableCommitSuite."""

import time

from concurrent_writer import WriterPool
from conftest import commit_kinds, table_dir


def test_a_killed_writer_leaves_the_last_snapshot_readable(spark, warehouse, tmp_path):
    spark.sql("CREATE TABLE paimon.default.killed (writer INT, seq BIGINT)")
    spark.sql("INSERT INTO paimon.default.killed VALUES (0, 0), (0, 1)")
    writers = WriterPool(str(warehouse), [9], tmp_path / "writers")
    writers.start("paimon.default.killed", 1000, rows=20000)
    # Let it write and commit for a while, then kill it without warning, mid-write or mid-commit.
    table = table_dir(warehouse, "killed")
    deadline = time.time() + 120
    while len(list((table / "snapshot").glob("snapshot-*"))) < 3 and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1.3)
    writers.kill(9)
    ids = sorted(int(f.name.split("-")[1]) for f in (table / "snapshot").glob("snapshot-*"))
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 3
    got = spark.table("paimon.default.killed").collect()
    # Every APPEND after the first is one of the writer's commits; COMPACT snapshots (inline
    # small-file compaction, which the kill may also have hit) add no rows.
    assert len(got) == 2 + (commit_kinds(warehouse, "killed").count("APPEND") - 1) * 20000
    assert sorted((r.writer, r.seq) for r in got if r.writer == 0) == [(0, 0), (0, 1)]
    spark.sql("INSERT INTO paimon.default.killed VALUES (0, 2)")
    assert spark.table("paimon.default.killed").count() == len(got) + 1
