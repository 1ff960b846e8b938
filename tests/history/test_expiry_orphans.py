"""Snapshot expiry (after each commit and by procedure) and orphan file cleanup: what stays and what goes on disk,
checked file by file, with the retained history read back here and by pypaimon."""

from __future__ import annotations

import json
import os
import time

import pytest

from conftest import oracle_rows, rows, table_dir
from history_util import (call, data_files, hint, listing, manifest_files, snapshot_ids, snapshot_json, utc,
                          utc_seconds_text, utc_text)
from paimon_spark import InvalidOptionError, VersionNotFoundError

pytestmark = pytest.mark.usefixtures("utc")


def in_a_minute():
    return utc_seconds_text(int(time.time() * 1000) + 60_000)


def orphans(spark, table, older_than=None):
    older_than = older_than or utc_text(int(time.time() * 1000) - 1)
    out = spark.sql(f"CALL paimon.sys.remove_orphan_files(table => '{table}', older_than => '{older_than}', "
                    f"dry_run => true)").collect()
    return sorted(r[2] for r in out if r[2] is not None)


class Tracked:
    """A partitioned append table whose live data files are known at every snapshot, by watching the disk."""

    def __init__(self, spark, warehouse, name, options=""):
        self.spark, self.warehouse, self.name = spark, warehouse, name
        self.full = f"paimon.default.{name}"
        self.root = table_dir(warehouse, name)
        props = f"TBLPROPERTIES ({options})" if options else ""
        spark.sql(f"CREATE TABLE {self.full} (id INT, v STRING, p STRING) PARTITIONED BY (p) {props}")
        self.rows: list[tuple] = []
        self.live: dict[int, set[str]] = {}  # snapshot id -> data files live in it
        self.states: dict[int, list[tuple]] = {}
        self.current: set[str] = set()

    def write(self, values, overwrite_partition=None):
        before = data_files(self.root)
        new_id = max(self.live, default=0) + 1
        if overwrite_partition:
            text = ", ".join(f"({i}, '{v}')" for i, v, _ in values)
            self.spark.sql(f"INSERT OVERWRITE {self.full} PARTITION (p = '{overwrite_partition}') VALUES {text}")
            self.current = {f for f in self.current if not f.startswith(f"p={overwrite_partition}/")}
            self.rows = [r for r in self.rows if r[2] != overwrite_partition]
        else:
            text = ", ".join(f"({i}, '{v}', '{p}')" for i, v, p in values)
            self.spark.sql(f"INSERT INTO {self.full} VALUES {text}")
        assert snapshot_ids(self.warehouse, self.name)[-1] == new_id, "one snapshot per write"
        self.current = self.current | (data_files(self.root) - before)  # expiry only ever deletes
        self.rows = sorted(self.rows + list(values))
        self.live[new_id] = set(self.current)
        self.states[new_id] = self.rows

    def needed(self, ids=None):
        ids = snapshot_ids(self.warehouse, self.name) if ids is None else ids
        return set().union(*(self.live[i] for i in ids)) if ids else set()


@pytest.mark.parametrize("options, kept", [
    # At most 3, whatever their age (the others are younger than the default hour).
    ("'snapshot.num-retained.max' = '3', 'snapshot.num-retained.min' = '1'", 3),
    # Anything older than 1 ms, as long as 2 remain.
    ("'snapshot.num-retained.min' = '2', 'snapshot.time-retained' = '1 ms'", 2),
])
def test_expiry_after_each_commit_keeps_the_newest_and_their_files_only(spark, oracle, warehouse, options, kept):
    name = f"ex_auto{kept}"
    t = Tracked(spark, warehouse, name, options)
    writes = [
        ([(1, "a", "x"), (2, "b", "y")], None),
        ([(3, "c", "x")], None),
        ([(4, "d", "x")], "x"),
        ([(5, "e", "y"), (6, "f", "z")], None),
        ([(7, "g", "y")], "y"),
        ([(8, "h", "x")], None),
        ([(9, "i", "z")], "z"),
    ]
    for n, (values, overwrite) in enumerate(writes, start=1):
        t.write(values, overwrite)
        expected_ids = list(range(max(1, n - kept + 1), n + 1))
        assert snapshot_ids(warehouse, name) == expected_ids, n
        if n > kept:
            assert hint(warehouse, name, "EARLIEST") == expected_ids[0]
        # Every file a retained snapshot reads is there, and nothing else.
        assert data_files(t.root) == t.needed(), n
    assert rows(spark.table(t.full)) == t.rows
    assert oracle_rows(oracle, name) == t.rows
    for sid in snapshot_ids(warehouse, name):
        assert rows(spark.sql(f"SELECT * FROM {t.full} VERSION AS OF {sid}")) == t.states[sid]
    # Manifests and manifest lists of expired snapshots went too.
    assert orphans(spark, f"default.{name}") == []
    with pytest.raises(VersionNotFoundError, match=rf"snapshot 2\b.*{8 - kept} to 7"):
        spark.sql(f"SELECT * FROM {t.full} VERSION AS OF 2").collect()


def test_primary_key_table_expiry_keeps_what_compaction_rewrote_correctly(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.ex_pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'num-sorted-run.compaction-trigger' = '2', 'snapshot.num-retained.max' = '2', "
              "'snapshot.num-retained.min' = '1', 'snapshot.time-retained' = '1 ms')")
    model = {}
    for i in range(6):
        spark.sql(f"INSERT INTO paimon.default.ex_pk VALUES ({i}, 'n{i}'), ({i % 2}, 'u{i}')")
        model[i] = f"n{i}"
        model[i % 2] = f"u{i}"
        expected = sorted(model.items())
        assert rows(spark.table("paimon.default.ex_pk")) == expected
        assert oracle_rows(oracle, "ex_pk") == expected
        assert len(snapshot_ids(warehouse, "ex_pk")) <= 2
    kinds = [snapshot_json(warehouse, "ex_pk", i)["commitKind"] for i in snapshot_ids(warehouse, "ex_pk")]
    assert "COMPACT" in kinds or max(snapshot_ids(warehouse, "ex_pk")) > 6, "compaction ran"
    assert orphans(spark, "default.ex_pk") == []


def test_dynamic_bucket_index_files_follow_their_snapshots(spark, oracle, warehouse):
    """The hash index of a dynamic-bucket table is rewritten by each commit: expiry deletes the old ones, keeps the
    current one, and orphan cleanup counts them as referenced."""
    spark.sql("CREATE TABLE paimon.default.ex_dyn (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '-1', 'snapshot.num-retained.max' = '2', 'snapshot.num-retained.min' = '1')")
    root = table_dir(warehouse, "ex_dyn")
    model = {}
    for i in range(5):
        spark.sql(f"INSERT INTO paimon.default.ex_dyn VALUES ({i}, 'v{i}'), ({i + 100}, 'w{i}'), (0, 'z{i}')")
        model.update({i: f"v{i}", i + 100: f"w{i}", 0: f"z{i}"})
    expected = sorted(model.items())
    assert rows(spark.table("paimon.default.ex_dyn")) == expected
    assert oracle_rows(oracle, "ex_dyn") == expected
    ids = snapshot_ids(warehouse, "ex_dyn")
    assert len(ids) == 2
    index = {p.name for p in (root / "index").iterdir()}
    # What the two retained snapshots' index manifests list is exactly what is in index/ besides the manifests.
    manifests = {snapshot_json(warehouse, "ex_dyn", i).get("indexManifest") for i in ids} - {None}
    assert manifests and manifests <= manifest_files(root)
    assert index, "dynamic-bucket tables keep a hash index"
    assert len(index) <= 2 * len(ids), index
    assert orphans(spark, "default.ex_dyn") == []
    for p in root.rglob("*"):
        if p.is_file():
            age(p)
    before = listing(root)
    call(spark, "remove_orphan_files", table="default.ex_dyn")
    assert listing(root) == before
    assert rows(spark.table("paimon.default.ex_dyn")) == expected


def live_files(oracle, name):
    """{file name: level} of the live data files, as pypaimon plans them."""
    splits = oracle.get_table(f"default.{name}").new_read_builder().new_scan().plan().splits()
    return {f.file_name: f.level for s in splits for f in s.files}


def test_files_a_compaction_moved_up_survive_expiry_and_rollback(spark, oracle, warehouse):
    """A compaction that moves a file up a level removes and adds the same file: it is still live."""
    spark.sql("CREATE TABLE paimon.default.ex_moved (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'write-only' = 'true', 'target-file-size' = '1 kb')")
    root = table_dir(warehouse, "ex_moved")
    spark.sql("INSERT INTO paimon.default.ex_moved SELECT CAST(id AS INT), 'a' FROM range(0, 2048)")
    spark.sql("INSERT INTO paimon.default.ex_moved SELECT CAST(id AS INT), 'b' FROM range(5000, 6024)")
    before = live_files(oracle, "ex_moved")
    call(spark, "compact", table="default.ex_moved")
    assert live_files(oracle, "ex_moved") == {n: 5 for n in before}, "the compaction moved the files"
    expected = [(i, "a") for i in range(2048)] + [(i, "b") for i in range(5000, 6024)]
    # Rolling back to before the compaction keeps the files: snapshot 2 reads them at level 0.
    assert call(spark, "rollback", table="default.ex_moved", snapshot=2) == [(3, 2)]
    assert {p.name for p in (root / "bucket-0").iterdir()} == set(before)
    assert rows(spark.table("paimon.default.ex_moved")) == expected
    assert oracle_rows(oracle, "ex_moved") == expected
    # Moved again, tagged, then new keys across two of the files: those two are rewritten, the third stays.
    call(spark, "compact", table="default.ex_moved")
    call(spark, "create_tag", table="default.ex_moved", tag="moved", snapshot=3)
    spark.sql("INSERT INTO paimon.default.ex_moved SELECT CAST(id AS INT), 'c' FROM range(1000, 1100)")
    call(spark, "compact", table="default.ex_moved")
    assert snapshot_ids(warehouse, "ex_moved") == [1, 2, 3, 4, 5]
    expected = [(i, "c" if 1000 <= i < 1100 else v) for i, v in expected]
    after = live_files(oracle, "ex_moved")
    assert len(set(before) & set(after)) == 1
    assert call(spark, "expire_snapshots", table="default.ex_moved", retain_max=1, retain_min=1,
                older_than=in_a_minute()) == [(4,)]
    # The tag still reads the three moved files.
    assert {p.name for p in (root / "bucket-0").iterdir()} == set(before) | set(after)
    assert rows(spark.sql("SELECT count(*) FROM paimon.default.ex_moved VERSION AS OF 'moved'")) == [(3072,)]
    call(spark, "delete_tag", table="default.ex_moved", tag="moved")
    assert {p.name for p in (root / "bucket-0").iterdir()} == set(after)
    assert rows(spark.table("paimon.default.ex_moved")) == expected
    assert oracle_rows(oracle, "ex_moved") == expected
    assert orphans(spark, "default.ex_moved") == []


def test_write_only_tables_do_not_expire_until_it_is_turned_off(spark, oracle, warehouse):
    t = Tracked(spark, warehouse, "ex_wo", "'snapshot.num-retained.max' = '3', 'snapshot.num-retained.min' = '1', "
                                           "'write-only' = 'true'")
    for i in range(5):
        t.write([(i, f"v{i}", "x")], "x" if i == 2 else None)
    assert snapshot_ids(warehouse, "ex_wo") == [1, 2, 3, 4, 5]
    assert data_files(t.root) == t.needed()
    assert not (t.root / "snapshot" / "EARLIEST").exists()
    spark.sql("ALTER TABLE paimon.default.ex_wo SET TBLPROPERTIES ('write-only' = 'false')")
    t.write([(9, "v9", "y")])
    assert snapshot_ids(warehouse, "ex_wo") == [4, 5, 6]
    assert data_files(t.root) == t.needed()
    assert rows(spark.table(t.full)) == t.rows
    assert oracle_rows(oracle, "ex_wo") == t.rows
    assert orphans(spark, "default.ex_wo") == []


def test_expire_snapshots_procedure_arguments(spark, oracle, warehouse):
    t = Tracked(spark, warehouse, "ex_proc")
    for i in range(1, 9):
        t.write([(i, f"v{i}", "x" if i % 2 else "y")], "y" if i == 4 else None)
    assert snapshot_ids(warehouse, "ex_proc") == list(range(1, 9))
    # Table defaults: at least 10 kept, and only after an hour.
    assert call(spark, "expire_snapshots", table="default.ex_proc") == [(0,)]
    # retain_max forces the oldest out whatever their age; retain_min alone waits for older_than.
    assert call(spark, "expire_snapshots", table="default.ex_proc", retain_max=7, retain_min=1) == [(1,)]
    assert snapshot_ids(warehouse, "ex_proc") == list(range(2, 9))
    assert call(spark, "expire_snapshots", table="default.ex_proc", retain_min=2) == [(0,)]
    # max_deletes bounds one run.
    assert call(spark, "expire_snapshots", table="default.ex_proc", retain_min=2, older_than=in_a_minute(),
                max_deletes=2) == [(2,)]
    assert snapshot_ids(warehouse, "ex_proc") == list(range(4, 9))
    assert data_files(t.root) == t.needed()
    # A consumer still reading from snapshot 6 holds it and everything after.
    consumer = t.root / "consumer"
    consumer.mkdir()
    (consumer / "consumer-reader").write_text(json.dumps({"nextSnapshot": 6}))
    assert call(spark, "expire_snapshots", table="default.ex_proc", retain_min=1, older_than=in_a_minute()) == [(2,)]
    assert snapshot_ids(warehouse, "ex_proc") == [6, 7, 8]
    (consumer / "consumer-reader").unlink()
    # Positional arguments, as Paimon's: table, retain_max, retain_min, older_than.
    spark.sql(f"CALL paimon.sys.expire_snapshots('default.ex_proc', 5, 1, '{in_a_minute()}')")
    assert snapshot_ids(warehouse, "ex_proc") == [8]
    assert hint(warehouse, "ex_proc", "EARLIEST") == 8
    assert data_files(t.root) == t.needed()
    assert rows(spark.table(t.full)) == t.rows
    assert oracle_rows(oracle, "ex_proc") == t.rows
    assert orphans(spark, "default.ex_proc") == []


@pytest.mark.parametrize("args, offending", [
    (dict(retain_min=0), "retain_min"),
    (dict(retain_max=0, retain_min=1), "retain_max"),
    (dict(retain_max=2, retain_min=3), "retain_min"),
    (dict(max_deletes=0), "max_deletes"),
    (dict(older_than="last tuesday"), "last tuesday"),
])
def test_bad_expire_arguments_change_nothing(spark, warehouse, args, offending):
    if not table_dir(warehouse, "ex_bad").exists():
        spark.sql("CREATE TABLE paimon.default.ex_bad (id INT)")
        for i in range(3):
            spark.sql(f"INSERT INTO paimon.default.ex_bad VALUES ({i})")
    root = table_dir(warehouse, "ex_bad")
    before = listing(root)
    with pytest.raises(InvalidOptionError, match=offending):
        call(spark, "expire_snapshots", table="default.ex_bad", **args)
    assert listing(root) == before


def age(path, days=2):
    past = time.time() - days * 86400
    os.utime(path, (past, past))


@pytest.fixture(scope="module")
def orphan_table(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.orph (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.orph VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql("INSERT INTO paimon.default.orph VALUES (3, 'c', 'x')")
    spark.sql("INSERT OVERWRITE paimon.default.orph PARTITION (p = 'y') VALUES (4, 'd')")
    root = table_dir(warehouse, "orph")
    # Every real file is old, so only references keep them.
    for p in root.rglob("*"):
        if p.is_file():
            age(p, days=3)
    return root


def test_remove_orphan_files_finds_exactly_the_unreferenced_old_files(spark, oracle, warehouse, orphan_table):
    root = orphan_table
    expected_rows = [(1, "a", "x"), (3, "c", "x"), (4, "d", "y")]
    bucket = root / "p=x" / "bucket-0"
    old = {
        bucket / "data-00000000-dead-beef-0000-000000000000-0.parquet": b"not really parquet" * 10,
        root / "manifest" / "manifest-00000000-dead-beef-0000-000000000000-0": b"m" * 33,
        root / "snapshot" / ".snapshot-9.6f1e0c1a-tmp": b"{}",
    }
    young = bucket / "data-11111111-dead-beef-0000-000000000000-0.parquet"
    for path, content in old.items():
        path.write_bytes(content)
        age(path)
    young.write_bytes(b"being written")
    before = listing(root)

    # Default older_than: a day ago.
    out = spark.sql("CALL paimon.sys.remove_orphan_files(table => 'default.orph', dry_run => true)").collect()
    assert sorted(os.path.basename(r["file_path"]) for r in out) == sorted(p.name for p in old)
    assert {(r[0], r[1]) for r in out} == {(3, sum(len(c) for c in old.values()))}
    assert listing(root) == before

    # older_than must be in the past.
    with pytest.raises(InvalidOptionError, match="older_than"):
        call(spark, "remove_orphan_files", table="default.orph", older_than=in_a_minute())
    with pytest.raises(InvalidOptionError, match="mode.*'SIDEWAYS'"):
        call(spark, "remove_orphan_files", table="default.orph", mode="sideways")
    with pytest.raises(InvalidOptionError, match="older_than"):
        call(spark, "remove_orphan_files", table="default.orph", older_than="not a time")
    assert listing(root) == before

    out = call(spark, "remove_orphan_files", table="default.orph")
    assert [r[:2] for r in out] == [(3, sum(len(c) for c in old.values()))]
    after = listing(root)
    assert set(before) - set(after) == {str(p.relative_to(root)) for p in old}
    assert set(after) <= set(before)
    assert young.exists()
    assert rows(spark.table("paimon.default.orph")) == expected_rows
    assert oracle_rows(oracle, "orph") == expected_rows
    for sid in (1, 2, 3):
        spark.sql(f"SELECT * FROM paimon.default.orph VERSION AS OF {sid}").collect()

    # Once it is older than older_than, the young one goes too.
    time.sleep(0.01)
    assert [os.path.basename(p) for p in orphans(spark, "default.orph")] == [young.name]
    spark.sql(f"CALL paimon.sys.remove_orphan_files(table => 'default.orph', "
              f"older_than => '{utc_text(int(time.time() * 1000) - 1)}')").collect()
    assert not young.exists()
    assert rows(spark.table("paimon.default.orph")) == expected_rows


def test_remove_orphan_files_leaves_files_paimon_does_not_own(spark, warehouse, orphan_table):
    """Paimon only looks for orphans in manifest/, index/, statistics/ and bucket directories: a partition's
    _SUCCESS marker, Iceberg metadata written beside the table, or any other file stays."""
    root = orphan_table
    foreign = [root / "p=x" / "_SUCCESS", root / "metadata" / "v1.metadata.json", root / "README.txt",
               root / "p=x" / "notes" / "todo.txt"]
    for path in foreign:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not Paimon's")
        age(path)
    before = listing(root)
    assert orphans(spark, "default.orph") == []
    call(spark, "remove_orphan_files", table="default.orph", older_than=utc_text(int(time.time() * 1000) - 1))
    assert listing(root) == before
    for path in foreign:
        path.unlink()


def test_old_referenced_files_of_tags_and_retained_snapshots_are_not_orphans(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.orph_tags (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.orph_tags VALUES (1, 'x')")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.orph_tags', tag => 'one')")
    spark.sql("INSERT OVERWRITE paimon.default.orph_tags VALUES (2, 'x')")
    spark.sql("INSERT INTO paimon.default.orph_tags VALUES (3, 'x')")
    call(spark, "expire_snapshots", table="default.orph_tags", retain_max=1, retain_min=1, older_than=in_a_minute())
    root = table_dir(warehouse, "orph_tags")
    assert snapshot_ids(warehouse, "orph_tags") == [3]
    for p in root.rglob("*"):
        if p.is_file():
            age(p)
    before = listing(root)
    assert orphans(spark, "default.orph_tags") == []
    call(spark, "remove_orphan_files", table="default.orph_tags")
    assert listing(root) == before
    assert rows(spark.sql("SELECT * FROM paimon.default.orph_tags VERSION AS OF 'one'")) == [(1, "x")]
    assert rows(spark.table("paimon.default.orph_tags")) == [(2, "x"), (3, "x")]
    assert manifest_files(root)


def test_remove_orphan_files_of_every_table_in_a_database(spark, warehouse):
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.orphan_db")
    roots = []
    for name in ("a", "b"):
        spark.sql(f"CREATE TABLE paimon.orphan_db.{name} (id INT)")
        spark.sql(f"INSERT INTO paimon.orphan_db.{name} VALUES (1)")
        root = table_dir(warehouse, name, db="orphan_db")
        junk = root / "bucket-0" / "data-00000000-dead-beef-0000-000000000000-0.parquet"
        junk.write_bytes(b"junk")
        age(junk)
        roots.append(junk)
    out = call(spark, "remove_orphan_files", table="orphan_db.*")
    assert sum(r[0] for r in out) == 2
    assert not any(j.exists() for j in roots)
    with pytest.raises(InvalidOptionError, match="no database 'nodb'"):
        call(spark, "remove_orphan_files", table="nodb.*")
