"""Rollback (by id, tag, version and time) and branches (create, write, read, fast-forward, delete), with the
files left on disk checked against what the remaining history references, and pypaimon reading every result."""

from __future__ import annotations

import time

import pytest

from conftest import oracle_rows, rows, table_dir
from history_util import (call, data_files, hint, listing, oracle_rows_at, read_all, snapshot_ids, snapshot_json, utc,
                          utc_seconds_text, utc_text)
from paimon_spark import InvalidOptionError, PaimonError, VersionAlreadyExistsError, VersionNotFoundError

pytestmark = pytest.mark.usefixtures("utc")


def orphans(spark, table):
    """What orphan cleanup would remove right now (dry run): files nothing in the history references."""
    older_than = utc_text(int(time.time() * 1000) - 1)
    out = spark.sql(f"CALL paimon.sys.remove_orphan_files(table => '{table}', older_than => '{older_than}', "
                    f"dry_run => true)").collect()
    return [r[2] for r in out if r[2] is not None]


def tags(warehouse, name, branch=None):
    root = table_dir(warehouse, name)
    d = (root / "branch" / f"branch-{branch}" / "tag") if branch else root / "tag"
    return sorted(p.name[4:] for p in d.glob("tag-*")) if d.exists() else []


class Table:
    """A partitioned append table with a model of its rows at each snapshot."""

    def __init__(self, spark, warehouse, name):
        self.spark, self.warehouse, self.name = spark, warehouse, name
        self.full = f"paimon.default.{name}"
        self.root = table_dir(warehouse, name)
        spark.sql(f"CREATE TABLE {self.full} (id INT, v STRING, p STRING) PARTITIONED BY (p)")
        self.rows: list[tuple] = []
        self.states: dict[int, list[tuple]] = {}

    def insert(self, *values):
        self.spark.sql(f"INSERT INTO {self.full} VALUES " + ", ".join(f"({i}, '{v}', '{p}')" for i, v, p in values))
        self.rows = sorted(self.rows + list(values))
        self.states[snapshot_ids(self.warehouse, self.name)[-1]] = self.rows

    def overwrite(self, p, *values):
        self.spark.sql(f"INSERT OVERWRITE {self.full} PARTITION (p = '{p}') VALUES "
                       + ", ".join(f"({i}, '{v}')" for i, v in values))
        self.rows = sorted([r for r in self.rows if r[2] != p] + [(i, v, p) for i, v in values])
        self.states[snapshot_ids(self.warehouse, self.name)[-1]] = self.rows

    def rolled_back_to(self, sid):
        self.rows = self.states[sid]
        self.states = {k: v for k, v in self.states.items() if k <= sid}


def check(spark, oracle, t: Table):
    """The table reads as the model says, here and in pypaimon, and holds no file its history does not use."""
    assert rows(spark.table(t.full)) == t.rows
    assert oracle_rows(oracle, t.name) == t.rows
    for sid in snapshot_ids(t.warehouse, t.name):
        assert rows(spark.sql(f"SELECT * FROM {t.full} VERSION AS OF {sid}")) == t.states[sid], sid
    assert orphans(spark, f"default.{t.name}") == []


def test_rollback_by_version_tag_snapshot_and_time(spark, oracle, warehouse):
    t = Table(spark, warehouse, "rb")
    t.insert((1, "a", "x"), (2, "b", "y"))
    t.insert((3, "c", "x"))
    call(spark, "create_tag", table="default.rb", tag="t2", snapshot=2)
    t.overwrite("x", (4, "d"))
    t.insert((5, "e", "y"), (6, "f", "z"))
    call(spark, "create_tag", table="default.rb", tag="t4", snapshot=4)
    t.overwrite("y", (7, "g"))
    assert snapshot_ids(warehouse, "rb") == [1, 2, 3, 4, 5]
    check(spark, oracle, t)

    # By version, all digits: a snapshot id.
    assert call(spark, "rollback", table="default.rb", version="4") == [(5, 4)]
    t.rolled_back_to(4)
    assert snapshot_ids(warehouse, "rb") == [1, 2, 3, 4] and hint(warehouse, "rb", "LATEST") == 4
    assert tags(warehouse, "rb") == ["t2", "t4"]
    check(spark, oracle, t)
    # The next commit takes the id after the rolled-back one.
    t.insert((8, "h", "z"))
    assert snapshot_ids(warehouse, "rb") == [1, 2, 3, 4, 5]
    assert snapshot_json(warehouse, "rb", 5)["commitKind"] == "APPEND" and t.states[5] == t.rows
    check(spark, oracle, t)

    # By tag: later snapshots and later tags go, and so do the files only they used.
    assert call(spark, "rollback", table="default.rb", tag="t2") == [(5, 2)]
    t.rolled_back_to(2)
    assert snapshot_ids(warehouse, "rb") == [1, 2] and tags(warehouse, "rb") == ["t2"]
    assert len(data_files(t.root)) == 3  # snapshot 2's files: two from the first commit, one from the second
    check(spark, oracle, t)
    assert oracle_rows_at(oracle, "rb", {"scan.tag-name": "t2"}) == t.rows
    t.insert((9, "i", "x"))
    assert snapshot_ids(warehouse, "rb") == [1, 2, 3]

    # By version naming a tag, and by the snapshot argument.
    call(spark, "create_tag", table="default.rb", tag="t3", snapshot=3)
    t.insert((10, "j", "y"))
    assert call(spark, "rollback", table="default.rb", version="t3") == [(4, 3)]
    t.rolled_back_to(3)
    check(spark, oracle, t)
    assert call(spark, "rollback", table="default.rb", snapshot=2) == [(3, 2)]
    t.rolled_back_to(2)
    assert tags(warehouse, "rb") == ["t2"]
    check(spark, oracle, t)

    # By time: the latest snapshot committed at or before it.
    t.insert((11, "k", "z"))
    t.insert((12, "l", "z"))
    t3 = snapshot_json(warehouse, "rb", 3)["timeMillis"]
    t4 = snapshot_json(warehouse, "rb", 4)["timeMillis"]
    assert t4 > t3
    assert call(spark, "rollback_to_timestamp", table="default.rb", timestamp=t4 - 1) == [(4, 3)]
    t.rolled_back_to(3)
    assert snapshot_ids(warehouse, "rb") == [1, 2, 3]
    check(spark, oracle, t)
    assert call(spark, "rollback_to_timestamp", table="default.rb", timestamp=t3) == [(3, 3)]
    check(spark, oracle, t)


def test_rollback_to_a_tag_whose_snapshot_expired_restores_it(spark, oracle, warehouse):
    t = Table(spark, warehouse, "rb_expired")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "x"))
    call(spark, "create_tag", table="default.rb_expired", tag="old", snapshot=2)
    t.overwrite("x", (3, "c"))
    t.insert((4, "d", "y"))
    future = utc_seconds_text(int(time.time() * 1000) + 60_000)
    call(spark, "expire_snapshots", table="default.rb_expired", retain_max=1, retain_min=1, older_than=future)
    assert snapshot_ids(warehouse, "rb_expired") == [4]
    assert call(spark, "rollback", table="default.rb_expired", tag="old") == [(4, 2)]
    t.rolled_back_to(2)
    assert snapshot_ids(warehouse, "rb_expired") == [2]
    assert hint(warehouse, "rb_expired", "EARLIEST") == 2 and hint(warehouse, "rb_expired", "LATEST") == 2
    # The restored snapshot is the tagged one, without the tag's own fields.
    restored = snapshot_json(warehouse, "rb_expired", 2)
    tag = json_of(table_dir(warehouse, "rb_expired") / "tag" / "tag-old")
    assert restored == tag
    check(spark, oracle, t)
    t.insert((5, "e", "y"))
    assert snapshot_ids(warehouse, "rb_expired") == [2, 3]
    check(spark, oracle, t)


def json_of(path):
    import json

    return json.loads(path.read_text())


def test_bad_rollbacks_change_nothing(spark, warehouse):
    t = Table(spark, warehouse, "rb_bad")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "x"))
    call(spark, "create_tag", table="default.rb_bad", tag="one", snapshot=1)
    before = listing(t.root)
    with pytest.raises(VersionNotFoundError, match=r"snapshot 7\b.*1 to 2"):
        call(spark, "rollback", table="default.rb_bad", version="7")
    with pytest.raises(VersionNotFoundError, match=r"snapshot 7\b.*1 to 2"):
        call(spark, "rollback", table="default.rb_bad", snapshot=7)
    with pytest.raises(VersionNotFoundError, match="'two'.*one"):
        call(spark, "rollback", table="default.rb_bad", tag="two")
    with pytest.raises(VersionNotFoundError, match="'two'.*one"):
        call(spark, "rollback", table="default.rb_bad", version="two")
    with pytest.raises(InvalidOptionError, match="version, snapshot or tag"):
        call(spark, "rollback", table="default.rb_bad", version="1", snapshot=1)
    with pytest.raises(InvalidOptionError, match="version, snapshot or tag"):
        call(spark, "rollback", table="default.rb_bad")
    with pytest.raises(VersionNotFoundError, match="earliest"):
        call(spark, "rollback_to_timestamp", table="default.rb_bad", timestamp=1000)
    assert listing(t.root) == before


# Branches.

def branch_dir(warehouse, name, branch):
    return table_dir(warehouse, name) / "branch" / f"branch-{branch}"


def test_empty_branch_written_and_read_apart_from_main(spark, oracle, warehouse):
    t = Table(spark, warehouse, "br")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "y"))
    assert call(spark, "create_branch", table="default.br", branch="dev") == [(True,)]
    bdir = branch_dir(warehouse, "br", "dev")
    assert (bdir / "schema" / "schema-0").read_text() == (t.root / "schema" / "schema-0").read_text()
    assert snapshot_ids(warehouse, "br", "dev") == []
    assert rows(spark.table("paimon.default.`br$branch_dev`")) == []
    spark.sql("INSERT INTO paimon.default.`br$branch_dev` VALUES (10, 'dev1', 'x')")
    assert snapshot_ids(warehouse, "br", "dev") == [1]
    spark.createDataFrame([(11, "dev2", "z")], "id INT, v STRING, p STRING") \
        .writeTo("paimon.default.br").option("branch", "dev").append()
    assert snapshot_ids(warehouse, "br", "dev") == [1, 2]
    dev = [(10, "dev1", "x"), (11, "dev2", "z")]
    assert rows(spark.table("paimon.default.`br$branch_dev`")) == dev
    assert rows(spark.read.option("branch", "dev").table("paimon.default.br")) == dev
    assert rows(spark.read.format("paimon").option("branch", "dev").load(str(t.root))) == dev
    assert read_all(oracle.get_table("default.br$branch_dev")) == dev
    assert rows(spark.sql("SELECT * FROM paimon.default.`br$branch_dev` VERSION AS OF 1")) == dev[:1]
    # A branch and a point in its history, by read options on the table and on its path.
    assert rows(spark.read.option("branch", "dev").option("scan.snapshot-id", "1").table("paimon.default.br")) \
        == dev[:1]
    assert rows(spark.read.format("paimon").option("branch", "dev").option("scan.snapshot-id", "1")
                .load(str(t.root))) == dev[:1]
    assert read_all(oracle.get_table("default.br$branch_dev").copy({"scan.snapshot-id": "1"})) == dev[:1]
    # Main is untouched.
    assert snapshot_ids(warehouse, "br") == [1, 2]
    assert rows(spark.table("paimon.default.br")) == t.rows
    assert oracle_rows(oracle, "br") == t.rows
    branches = spark.sql("SELECT * FROM paimon.default.`br$branches`").collect()
    assert [r["branch_name"] for r in branches] == ["dev"] and branches[0]["create_time"] is not None
    # Tags on a branch live in the branch.
    call(spark, "create_tag", table="default.br$branch_dev", tag="dev_tag", snapshot=1)
    assert tags(warehouse, "br", "dev") == ["dev_tag"] and tags(warehouse, "br") == []
    assert rows(spark.sql("SELECT * FROM paimon.default.`br$branch_dev` VERSION AS OF 'dev_tag'")) == dev[:1]
    branch_tags = spark.sql("SELECT tag_name FROM paimon.default.`br$branch_dev$tags`").collect()
    assert [r[0] for r in branch_tags] == ["dev_tag"]
    assert orphans(spark, "default.br") == []


def test_branch_from_tag_then_fast_forward_and_delete(spark, oracle, warehouse):
    t = Table(spark, warehouse, "brt")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "y"))
    call(spark, "create_tag", table="default.brt", tag="base", snapshot=2)
    t.insert((3, "c", "x"))
    call(spark, "create_branch", table="default.brt", branch="feature", tag="base")
    assert snapshot_ids(warehouse, "brt", "feature") == [2]
    assert tags(warehouse, "brt", "feature") == ["base"]
    base = t.states[2]
    assert rows(spark.table("paimon.default.`brt$branch_feature`")) == base
    assert read_all(oracle.get_table("default.brt$branch_feature")) == base
    spark.sql("INSERT INTO paimon.default.`brt$branch_feature` VALUES (20, 'f1', 'y')")
    spark.sql("INSERT OVERWRITE paimon.default.`brt$branch_feature` PARTITION (p = 'x') VALUES (21, 'f2')")
    assert snapshot_ids(warehouse, "brt", "feature") == [2, 3, 4]
    feature = [(2, "b", "y"), (20, "f1", "y"), (21, "f2", "x")]
    assert rows(spark.table("paimon.default.`brt$branch_feature`")) == feature
    assert read_all(oracle.get_table("default.brt$branch_feature")) == feature
    assert rows(spark.table("paimon.default.brt")) == t.rows

    # Fast-forward: main's snapshots from the branch's first on are replaced by the branch's.
    assert call(spark, "fast_forward", table="default.brt", branch="feature") == [(True,)]
    assert snapshot_ids(warehouse, "brt") == [1, 2, 3, 4]
    for sid in (2, 3, 4):
        assert snapshot_json(warehouse, "brt", sid) == snapshot_json(warehouse, "brt", sid, "feature")
    assert rows(spark.table("paimon.default.brt")) == feature
    assert oracle_rows(oracle, "brt") == feature
    assert rows(spark.sql("SELECT * FROM paimon.default.brt VERSION AS OF 1")) == t.states[1]
    assert rows(spark.sql("SELECT * FROM paimon.default.brt VERSION AS OF 3")) == [(1, "a", "x"), (2, "b", "y"),
                                                                                 (20, "f1", "y")]
    # Main writes on from the branch's latest.
    spark.sql("INSERT INTO paimon.default.brt VALUES (30, 'm', 'z')")
    assert snapshot_ids(warehouse, "brt") == [1, 2, 3, 4, 5]
    assert rows(spark.table("paimon.default.brt")) == sorted(feature + [(30, "m", "z")])

    assert call(spark, "delete_branch", table="default.brt", branch="feature") == [(True,)]
    assert not branch_dir(warehouse, "brt", "feature").exists()
    assert spark.sql("SELECT * FROM paimon.default.`brt$branches`").collect() == []
    with pytest.raises(PaimonError, match="feature"):
        spark.table("paimon.default.`brt$branch_feature`").collect()
    assert rows(spark.table("paimon.default.brt")) == sorted(feature + [(30, "m", "z")])
    assert oracle_rows(oracle, "brt") == sorted(feature + [(30, "m", "z")])


def test_main_expiry_and_tag_deletion_keep_the_files_a_branch_reads(spark, oracle, warehouse):
    t = Table(spark, warehouse, "brx")
    t.insert((1, "a", "x"), (2, "b", "y"))
    t.insert((3, "c", "x"))
    call(spark, "create_tag", table="default.brx", tag="fork", snapshot=2)
    call(spark, "create_branch", table="default.brx", branch="keep", tag="fork")
    branch_rows = t.states[2]
    # Main drops everything the branch reads, then expires hard and deletes the tag.
    spark.sql("INSERT OVERWRITE paimon.default.brx VALUES (4, 'd', 'x'), (5, 'e', 'y')")
    spark.sql("INSERT INTO paimon.default.brx VALUES (6, 'f', 'z')")
    main_rows = [(4, "d", "x"), (5, "e", "y"), (6, "f", "z")]
    future = utc_seconds_text(int(time.time() * 1000) + 60_000)
    assert call(spark, "expire_snapshots", table="default.brx", retain_max=1, retain_min=1, older_than=future) == [(3,)]
    call(spark, "delete_tag", table="default.brx", tag="fork")
    assert snapshot_ids(warehouse, "brx") == [4] and tags(warehouse, "brx") == []
    assert rows(spark.table("paimon.default.`brx$branch_keep`")) == branch_rows
    assert read_all(oracle.get_table("default.brx$branch_keep")) == branch_rows
    assert rows(spark.table("paimon.default.brx")) == main_rows
    assert orphans(spark, "default.brx") == []
    # The branch writes and expires on its own; main keeps its files.
    spark.sql("INSERT OVERWRITE paimon.default.`brx$branch_keep` VALUES (7, 'g', 'x')")
    spark.sql("INSERT INTO paimon.default.`brx$branch_keep` VALUES (8, 'h', 'x')")
    assert call(spark, "expire_snapshots", table="default.brx$branch_keep", retain_max=1, retain_min=1,
                older_than=future) == [(2,)]
    assert snapshot_ids(warehouse, "brx", "keep") == [4]
    assert rows(spark.table("paimon.default.`brx$branch_keep`")) == [(7, "g", "x"), (8, "h", "x")]
    assert rows(spark.table("paimon.default.brx")) == main_rows
    assert oracle_rows(oracle, "brx") == main_rows
    assert orphans(spark, "default.brx") == []
    # Deleting the branch leaves its files to orphan cleanup, as in Paimon.
    call(spark, "delete_branch", table="default.brx", branch="keep")
    assert len(orphans(spark, "default.brx")) > 0
    assert rows(spark.table("paimon.default.brx")) == main_rows


def test_branch_expiry_keeps_the_files_main_still_reads(spark, oracle, warehouse):
    """Main wrote a file after its earliest snapshot, then the branch forked: the branch dropping and expiring that
    file must leave it to main."""
    t = Table(spark, warehouse, "bry")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "y"))
    call(spark, "create_tag", table="default.bry", tag="fork", snapshot=2)
    call(spark, "create_branch", table="default.bry", branch="b", tag="fork")
    # The branch starts with a copy of the tag; both go.
    assert tags(warehouse, "bry", "b") == ["fork"]
    call(spark, "delete_tag", table="default.bry", tag="fork")
    call(spark, "delete_tag", table="default.bry$branch_b", tag="fork")
    spark.sql("INSERT OVERWRITE paimon.default.`bry$branch_b` VALUES (3, 'c', 'z')")
    spark.sql("INSERT INTO paimon.default.`bry$branch_b` VALUES (4, 'd', 'z')")
    future = utc_seconds_text(int(time.time() * 1000) + 60_000)
    assert call(spark, "expire_snapshots", table="default.bry$branch_b", retain_max=1, retain_min=1,
                older_than=future) == [(2,)]
    assert rows(spark.table("paimon.default.`bry$branch_b`")) == [(3, "c", "z"), (4, "d", "z")]
    assert rows(spark.table("paimon.default.bry")) == t.rows
    assert oracle_rows(oracle, "bry") == t.rows
    for sid in (1, 2):
        assert rows(spark.sql(f"SELECT * FROM paimon.default.bry VERSION AS OF {sid}")) == t.states[sid]
    assert orphans(spark, "default.bry") == []


def test_branch_tag_deletion_keeps_the_files_main_still_reads(spark, oracle, warehouse):
    t = Table(spark, warehouse, "brz")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "y"))
    call(spark, "create_tag", table="default.brz", tag="fork", snapshot=2)
    call(spark, "create_branch", table="default.brz", branch="b", tag="fork")
    call(spark, "delete_tag", table="default.brz", tag="fork")
    call(spark, "delete_tag", table="default.brz$branch_b", tag="fork")
    # The branch tags its first snapshot, moves on, expires it, then deletes the tag.
    call(spark, "create_tag", table="default.brz$branch_b", tag="start", snapshot=2)
    spark.sql("INSERT OVERWRITE paimon.default.`brz$branch_b` VALUES (3, 'c', 'z')")
    future = utc_seconds_text(int(time.time() * 1000) + 60_000)
    call(spark, "expire_snapshots", table="default.brz$branch_b", retain_max=1, retain_min=1, older_than=future)
    assert snapshot_ids(warehouse, "brz", "b") == [3]
    call(spark, "delete_tag", table="default.brz$branch_b", tag="start")
    assert rows(spark.table("paimon.default.`brz$branch_b`")) == [(3, "c", "z")]
    assert rows(spark.table("paimon.default.brz")) == t.rows
    assert oracle_rows(oracle, "brz") == t.rows
    assert orphans(spark, "default.brz") == []


def test_rolling_main_back_past_a_fork_keeps_the_branch(spark, oracle, warehouse):
    t = Table(spark, warehouse, "brr")
    t.insert((1, "a", "x"))
    t.insert((2, "b", "y"))
    t.insert((3, "c", "x"))
    call(spark, "create_tag", table="default.brr", tag="fork", snapshot=3)
    call(spark, "create_branch", table="default.brr", branch="b", tag="fork")
    spark.sql("INSERT INTO paimon.default.`brr$branch_b` VALUES (4, 'd', 'z')")
    branch = sorted(t.states[3] + [(4, "d", "z")])
    # Main drops snapshots 2 and 3 and the tag; the branch keeps its copy and the files.
    assert call(spark, "rollback", table="default.brr", snapshot=1) == [(3, 1)]
    t.rolled_back_to(1)
    assert tags(warehouse, "brr") == [] and tags(warehouse, "brr", "b") == ["fork"]
    assert rows(spark.table("paimon.default.`brr$branch_b`")) == branch
    assert read_all(oracle.get_table("default.brr$branch_b")) == branch
    check(spark, oracle, t)


def test_bad_branch_calls_change_nothing(spark, warehouse):
    t = Table(spark, warehouse, "brbad")
    t.insert((1, "a", "x"))
    call(spark, "create_tag", table="default.brbad", tag="t1")
    call(spark, "create_branch", table="default.brbad", branch="b1")
    before = listing(t.root)
    with pytest.raises(VersionAlreadyExistsError, match="'b1'"):
        call(spark, "create_branch", table="default.brbad", branch="b1")
    # ignoreIfExists makes it a no-op.
    assert call(spark, "create_branch", table="default.brbad", branch="b1", ignoreIfExists="true") == [(True,)]
    for bad in ("main", "123", "", "a/b", "x$y"):
        with pytest.raises(InvalidOptionError, match="branch"):
            call(spark, "create_branch", table="default.brbad", branch=bad)
    with pytest.raises(VersionNotFoundError, match="'nope'.*t1"):
        call(spark, "create_branch", table="default.brbad", branch="b2", tag="nope")
    with pytest.raises(VersionNotFoundError, match="'ghost'.*b1"):
        call(spark, "delete_branch", table="default.brbad", branch="ghost")
    # Every name is checked before any branch is deleted.
    with pytest.raises(VersionNotFoundError, match="'ghost'"):
        call(spark, "delete_branch", table="default.brbad", branch="b1,ghost")
    with pytest.raises(InvalidOptionError, match="','"):
        call(spark, "delete_branch", table="default.brbad", branch=",")
    with pytest.raises(VersionNotFoundError, match="'ghost'"):
        call(spark, "fast_forward", table="default.brbad", branch="ghost")
    with pytest.raises(VersionNotFoundError, match="'b1'.*no snapshot"):
        call(spark, "fast_forward", table="default.brbad", branch="b1")
    with pytest.raises(InvalidOptionError, match="main"):
        call(spark, "fast_forward", table="default.brbad", branch="main")
    with pytest.raises(PaimonError, match="ghost"):
        spark.sql("INSERT INTO paimon.default.`brbad$branch_ghost` VALUES (1, 'a', 'x')")
    with pytest.raises(PaimonError, match="ghost"):
        spark.read.option("branch", "ghost").table("paimon.default.brbad").collect()
    assert listing(t.root) == before
