"""Writer processes racing for the same snapshot ids on S3 (a moto server), with no lock service: every commit
lands exactly once, none is lost, and a writer killed mid-write leaves the table readable."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from concurrent_writer import WriterPool
from conftest import oracle_rows
from s3_store import bucket, keys, moto, oracle, spark, warehouse  # noqa: F401  (fixtures)


@pytest.fixture(scope="module")
def writers(spark, moto, warehouse, tmp_path_factory):
    """Three writer processes serving the module's races in turn (a session takes seconds to start)."""
    pool = WriterPool(warehouse, range(1, 4), tmp_path_factory.mktemp("writers"), env=moto.worker_env())
    yield pool
    pool.close()


def snapshots(moto, bucket, table):
    client = moto.client()
    found = {}
    for key in keys(moto, bucket, f"warehouse/default.db/{table}/snapshot/snapshot-"):
        found[int(key.rsplit("-", 1)[1])] = json.loads(client.get_object(Bucket=bucket, Key=key)["Body"].read())
    return found


def test_three_writer_processes_append_three_commits_each_and_none_is_lost(spark, moto, bucket, writers):
    spark.sql("CREATE TABLE paimon.default.conc (writer INT, seq BIGINT) TBLPROPERTIES ('commit.max-retries' = '200', "
              "'write-only' = 'true')")
    assert writers.run("paimon.default.conc", 3) == {w: 3 for w in range(1, 4)}
    found = snapshots(moto, bucket, "conc")
    assert sorted(found) == list(range(1, 10))
    commits = Counter((s["commitUser"], s["commitIdentifier"]) for s in found.values())
    assert len(commits) == 9 and max(commits.values()) == 1
    got = sorted((r.writer, r.seq) for r in spark.table("paimon.default.conc").collect())
    assert got == sorted((w, i * 1000000) for w in range(1, 4) for i in range(3))


def test_two_writers_upsert_and_compact_one_primary_key_table_on_s3(spark, moto, bucket, oracle, writers):
    # A trigger of 3 makes every other write compact: compactions race each other and the other writer's appends.
    spark.sql("CREATE TABLE paimon.default.pkconc (writer INT, seq BIGINT) TBLPROPERTIES ('primary-key' = "
              "'writer,seq', 'bucket' = '2', 'num-sorted-run.compaction-trigger' = '3', 'commit.max-retries' = '200')")
    writers.run("paimon.default.pkconc", 6, rows=2, writers=(1, 2))
    found = snapshots(moto, bucket, "pkconc")
    assert sorted(found) == list(range(1, len(found) + 1))
    kinds = Counter(s["commitKind"] for s in found.values())
    assert kinds["APPEND"] == 12 and kinds["COMPACT"] >= 1
    commits = Counter((s["commitUser"], s["commitIdentifier"], s["commitKind"]) for s in found.values())
    assert max(commits.values()) == 1
    expected = sorted((w, i * 1000000 + r) for w in (1, 2) for i in range(6) for r in range(2))
    assert sorted((r.writer, r.seq) for r in spark.table("paimon.default.pkconc").collect()) == expected
    assert sum(s["deltaRecordCount"] for s in found.values() if s["commitKind"] == "APPEND") == 24
    assert oracle_rows(oracle, "pkconc") == expected


def test_a_writer_killed_during_upserts_and_compaction_loses_no_committed_row(spark, moto, bucket, writers):
    spark.sql("CREATE TABLE paimon.default.killed (writer INT, seq BIGINT) TBLPROPERTIES ('primary-key' = "
              "'writer,seq', 'bucket' = '1', 'num-sorted-run.compaction-trigger' = '2')")
    writers.start("paimon.default.killed", 1000, rows=5000, writers=(3,))
    deadline = time.time() + 240
    while len(snapshots(moto, bucket, "killed")) < 4 and time.time() < deadline and writers.procs[3].poll() is None:
        time.sleep(0.2)
    writers.kill(3)
    found = snapshots(moto, bucket, "killed")
    assert len(found) >= 4
    appended = sum(1 for s in found.values() if s["commitKind"] == "APPEND")
    got = sorted((r.writer, r.seq) for r in spark.table("paimon.default.killed").collect())
    # Every committed row is there; a commit the kill interrupted either landed whole or not at all.
    assert got == sorted((3, i * 1000000 + r) for i in range(appended) for r in range(5000))
