"""Tags: the procedures that make, move, rename and delete them, their files as Paimon writes them, the `$tags`
table, pypaimon reading our tags and we reading its, and tags keeping expired snapshots (and their files) alive."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from conftest import oracle_rows, rows, table_dir
from history_util import (call, data_files, listing, oracle_rows_at, oracle_system_rows, snapshot_ids, snapshot_json,
                          tag_names, utc, utc_seconds_text)
from paimon_spark import CorruptFileError, InvalidOptionError, VersionAlreadyExistsError, VersionNotFoundError

pytestmark = pytest.mark.usefixtures("utc")


def tag_file(warehouse, name, tag):
    return table_dir(warehouse, name) / "tag" / f"tag-{tag}"


def tag_json(warehouse, name, tag):
    return json.loads(tag_file(warehouse, name, tag).read_text())


@pytest.fixture(scope="module")
def tagged(spark, warehouse):
    """A table with three snapshots, each holding different rows."""
    spark.sql("CREATE TABLE paimon.default.tg (id INT, v STRING)")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO paimon.default.tg VALUES ({i}, 'v{i}')")
    assert snapshot_ids(warehouse, "tg") == [1, 2, 3]
    return {1: [(1, "v1")], 2: [(1, "v1"), (2, "v2")], 3: [(1, "v1"), (2, "v2"), (3, "v3")]}


def test_create_tag_on_latest_and_given_snapshot(spark, oracle, warehouse, tagged):
    assert call(spark, "create_tag", table="default.tg", tag="latest") == [(True,)]
    call(spark, "create_tag", table="default.tg", tag="first", snapshot=1)
    # Positional arguments, as Paimon's procedure takes them.
    spark.sql("CALL paimon.sys.create_tag('default.tg', 'second', 2)")
    for tag, sid in [("latest", 3), ("first", 1), ("second", 2)]:
        # A tag without time_retained is the snapshot's JSON as it is, as Paimon writes it.
        assert tag_json(warehouse, "tg", tag) == snapshot_json(warehouse, "tg", sid)
        assert rows(spark.sql(f"SELECT * FROM paimon.default.tg VERSION AS OF '{tag}'")) == tagged[sid]
        assert oracle_rows_at(oracle, "tg", {"scan.tag-name": tag}) == tagged[sid]
    assert {"latest", "first", "second"} <= pypaimon_tags(oracle, "tg")
    # Tags do not change the table.
    assert snapshot_ids(warehouse, "tg") == [1, 2, 3]
    assert rows(spark.table("paimon.default.tg")) == tagged[3]


def pypaimon_tags(oracle, name):
    return set(oracle.get_table(f"default.{name}").list_tags())


def test_tag_with_time_retained_is_written_as_paimon_writes_it(spark, warehouse, tagged):
    before = dt.datetime.now().replace(microsecond=0)
    call(spark, "create_tag", table="default.tg", tag="kept", snapshot=2, time_retained="1 d")
    after = dt.datetime.now()
    raw = tag_file(warehouse, "tg", "kept").read_text()
    content = json.loads(raw)
    snapshot = snapshot_json(warehouse, "tg", 2)
    assert {k: v for k, v in content.items() if k not in ("tagCreateTime", "tagTimeRetained")} == snapshot
    assert set(content) == set(snapshot) | {"tagCreateTime", "tagTimeRetained"}
    # A Duration is decimal seconds with nine fraction digits; a LocalDateTime an array, trailing zeros dropped.
    assert '"tagTimeRetained" : 86400.000000000' in raw
    parts = content["tagCreateTime"]
    assert 5 <= len(parts) <= 7 and all(isinstance(p, int) for p in parts)
    created = dt.datetime(*parts[:6], (parts[6] // 1000) if len(parts) == 7 else 0)
    assert before <= created <= after, (before, created, after)
    row = spark.sql("SELECT * FROM paimon.default.`tg$tags` WHERE tag_name = 'kept'").collect()
    assert len(row) == 1
    assert row[0]["snapshot_id"] == 2 and row[0]["time_retained"] == "PT24H" and row[0]["record_count"] == 2
    assert row[0]["create_time"].replace(microsecond=0) == created.replace(microsecond=0)
    # Other time_retained spellings.
    call(spark, "create_tag", table="default.tg", tag="short", snapshot=1, time_retained="90 min")
    assert tag_json(warehouse, "tg", "short")["tagTimeRetained"] == 5400
    assert '"tagTimeRetained" : 5400.000000000' in tag_file(warehouse, "tg", "short").read_text()
    call(spark, "delete_tag", table="default.tg", tag="short")


def test_tags_table_matches_the_tag_files_and_pypaimon(spark, oracle, warehouse, tagged):
    call(spark, "create_tag", table="default.tg", tag="t_one", snapshot=1)
    call(spark, "create_tag", table="default.tg", tag="t_three", snapshot=3, time_retained="5 s")
    ours = {r["tag_name"]: r.asDict() for r in spark.sql("SELECT * FROM paimon.default.`tg$tags`").collect()}
    assert set(ours) == set(tag_names(warehouse, "tg"))
    theirs = {r["tag_name"]: r for r in oracle_system_rows(oracle, "tg$tags")}
    assert set(theirs) == set(ours)
    for name, row in ours.items():
        content = tag_json(warehouse, "tg", name)
        assert row["snapshot_id"] == content["id"] and row["schema_id"] == content["schemaId"]
        assert row["record_count"] == content["totalRecordCount"]
        assert row["commit_time"] == dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=content["timeMillis"])
        other = theirs[name]
        for column in ("snapshot_id", "schema_id", "commit_time", "record_count", "time_retained"):
            assert row[column] == other[column], (name, column)
        # pypaimon keeps milliseconds of the create time.
        if row["create_time"] is None:
            assert other["create_time"] is None
        else:
            assert row["create_time"].replace(microsecond=row["create_time"].microsecond // 1000 * 1000) == \
                other["create_time"]
    # Rows come by snapshot id; a filter on the name reads just that tag.
    assert [r["snapshot_id"] for r in spark.sql("SELECT * FROM paimon.default.`tg$tags`").collect()] == \
        sorted(r["snapshot_id"] for r in ours.values())
    assert [r[0] for r in spark.sql("SELECT snapshot_id FROM paimon.default.`tg$tags` "
                                    "WHERE tag_name IN ('t_one', 't_three')").collect()] == [1, 3]
    assert ours["t_three"]["time_retained"] == "PT5S" and ours["t_one"]["create_time"] is None
    call(spark, "delete_tag", table="default.tg", tag="t_one,t_three")


def test_create_tag_from_timestamp(spark, warehouse, tagged):
    t2 = snapshot_json(warehouse, "tg", 2)["timeMillis"]
    t3 = snapshot_json(warehouse, "tg", 3)["timeMillis"]
    # The earliest snapshot committed at or after the time.
    out = spark.sql(f"CALL paimon.sys.create_tag_from_timestamp(table => 'default.tg', tag => 'ts_at2', "
                    f"timestamp => {t2})").collect()
    # Paimon's procedure prints String.valueOf(null) for a missing watermark; this one returns SQL NULL.
    assert [tuple(r) for r in out] == [("ts_at2", 2, t2, None)]
    call(spark, "create_tag_from_timestamp", table="default.tg", tag="ts_after2", timestamp=t2 + 1)
    call(spark, "create_tag_from_timestamp", table="default.tg", tag="ts_zero", timestamp=0)
    assert tag_json(warehouse, "tg", "ts_at2") == snapshot_json(warehouse, "tg", 2)
    assert tag_json(warehouse, "tg", "ts_after2")["id"] == 3
    assert tag_json(warehouse, "tg", "ts_zero")["id"] == 1
    call(spark, "create_tag_from_timestamp", table="default.tg", tag="ts_ttl", timestamp=t3, time_retained="2 h")
    assert tag_json(warehouse, "tg", "ts_ttl")["tagTimeRetained"] == 7200
    root = table_dir(warehouse, "tg")
    before = listing(root)
    with pytest.raises(VersionNotFoundError, match="tg"):
        call(spark, "create_tag_from_timestamp", table="default.tg", tag="ts_future", timestamp=t3 + 1)
    assert listing(root) == before
    call(spark, "delete_tag", table="default.tg", tag="ts_at2,ts_after2,ts_zero,ts_ttl")


def test_rename_tag_moves_the_same_content(spark, oracle, warehouse, tagged):
    call(spark, "create_tag", table="default.tg", tag="old_name", snapshot=2, time_retained="3 d")
    call(spark, "create_tag", table="default.tg", tag="taken", snapshot=1)
    content = tag_file(warehouse, "tg", "old_name").read_bytes()
    assert call(spark, "rename_tag", table="default.tg", tag="old_name", target_tag="new_name") == [(True,)]
    assert not tag_file(warehouse, "tg", "old_name").exists()
    assert tag_file(warehouse, "tg", "new_name").read_bytes() == content
    assert rows(spark.sql("SELECT * FROM paimon.default.tg VERSION AS OF 'new_name'")) == tagged[2]
    assert oracle_rows_at(oracle, "tg", {"scan.tag-name": "new_name"}) == tagged[2]
    root = table_dir(warehouse, "tg")
    before = listing(root)
    with pytest.raises(VersionAlreadyExistsError, match="'taken'"):
        call(spark, "rename_tag", table="default.tg", tag="new_name", target_tag="taken")
    with pytest.raises(VersionNotFoundError, match="'old_name'") as e:
        call(spark, "rename_tag", table="default.tg", tag="old_name", target_tag="x")
    assert "new_name" in str(e.value)
    assert listing(root) == before
    call(spark, "delete_tag", table="default.tg", tag="new_name,taken")


def test_replace_tag_points_it_elsewhere(spark, oracle, warehouse, tagged):
    call(spark, "create_tag", table="default.tg", tag="moving", snapshot=1, time_retained="1 d")
    assert call(spark, "replace_tag", table="default.tg", tag="moving", snapshot=3) == [(True,)]
    # Without time_retained the new tag has none, as in Paimon.
    assert tag_json(warehouse, "tg", "moving") == snapshot_json(warehouse, "tg", 3)
    assert rows(spark.sql("SELECT * FROM paimon.default.tg VERSION AS OF 'moving'")) == tagged[3]
    assert oracle_rows_at(oracle, "tg", {"scan.tag-name": "moving"}) == tagged[3]
    call(spark, "replace_tag", table="default.tg", tag="moving", snapshot=2, time_retained="12 h")
    content = tag_json(warehouse, "tg", "moving")
    assert content["id"] == 2 and content["tagTimeRetained"] == 43200
    # No snapshot: the latest.
    call(spark, "replace_tag", table="default.tg", tag="moving")
    assert tag_json(warehouse, "tg", "moving")["id"] == 3
    root = table_dir(warehouse, "tg")
    before = listing(root)
    with pytest.raises(VersionNotFoundError, match="'absent'"):
        call(spark, "replace_tag", table="default.tg", tag="absent", snapshot=1)
    with pytest.raises(VersionNotFoundError, match=r"snapshot 7\b.*1 to 3"):
        call(spark, "replace_tag", table="default.tg", tag="moving", snapshot=7)
    assert listing(root) == before
    call(spark, "delete_tag", table="default.tg", tag="moving")


def test_delete_tag_takes_a_comma_list_and_passes_over_names_that_are_no_tag_as_paimon_does(spark, warehouse, tagged):
    for tag in ("d1", "d2", "d3"):
        call(spark, "create_tag", table="default.tg", tag=tag, snapshot=1)
    root = table_dir(warehouse, "tg")
    files = data_files(root)
    assert call(spark, "delete_tag", table="default.tg", tag="d1, nope") == [(True,)]
    assert call(spark, "delete_tag", table="default.tg", tag="d1, d2") == [(True,)]
    assert "d1" not in tag_names(warehouse, "tg") and "d2" not in tag_names(warehouse, "tg")
    assert "d3" in tag_names(warehouse, "tg")
    # The snapshot is still there: deleting its tag deletes no data file.
    assert data_files(root) == files
    call(spark, "delete_tag", table="default.tg", tag="d3")


def test_we_read_tags_pypaimon_makes_and_it_reads_ours(spark, oracle, warehouse, tagged):
    table = oracle.get_table("default.tg")
    table.create_tag("py_plain", snapshot_id=1)
    table.create_tag("py_ttl", snapshot_id=2, time_retained="1d")
    assert rows(spark.sql("SELECT * FROM paimon.default.tg VERSION AS OF 'py_plain'")) == tagged[1]
    assert rows(spark.read.option("scan.tag-name", "py_ttl").table("paimon.default.tg")) == tagged[2]
    got = {r["tag_name"]: r for r in spark.sql("SELECT * FROM paimon.default.`tg$tags`").collect()}
    assert got["py_plain"]["snapshot_id"] == 1 and got["py_plain"]["time_retained"] is None
    assert got["py_ttl"]["snapshot_id"] == 2 and got["py_ttl"]["time_retained"] == "PT24H"
    assert got["py_ttl"]["create_time"] is not None
    # We rename and delete its tags; it sees the result.
    call(spark, "rename_tag", table="default.tg", tag="py_ttl", target_tag="py_ttl2")
    assert oracle_rows_at(oracle, "tg", {"scan.tag-name": "py_ttl2"}) == tagged[2]
    call(spark, "delete_tag", table="default.tg", tag="py_plain,py_ttl2")
    assert not {"py_plain", "py_ttl", "py_ttl2"} & pypaimon_tags(oracle, "tg")


def test_duplicate_and_malformed_tags_are_refused_and_write_nothing(spark, warehouse, tagged):
    call(spark, "create_tag", table="default.tg", tag="dup", snapshot=1)
    root = table_dir(warehouse, "tg")
    before = listing(root)
    with pytest.raises(VersionAlreadyExistsError, match="'dup'"):
        call(spark, "create_tag", table="default.tg", tag="dup", snapshot=3)
    with pytest.raises(VersionNotFoundError, match=r"snapshot 9\b.*1 to 3"):
        call(spark, "create_tag", table="default.tg", tag="nine", snapshot=9)
    with pytest.raises(InvalidOptionError, match="time_retained.*'1 fortnight'"):
        call(spark, "create_tag", table="default.tg", tag="ttl", time_retained="1 fortnight")
    for bad in ("", "  ", "a/b", ".hidden"):
        with pytest.raises(InvalidOptionError, match="tag"):
            call(spark, "create_tag", table="default.tg", tag=bad)
    with pytest.raises(InvalidOptionError, match="' , '"):
        call(spark, "delete_tag", table="default.tg", tag=" , ")
    with pytest.raises(VersionAlreadyExistsError, match="'dup'"):
        call(spark, "rename_tag", table="default.tg", tag="dup", target_tag="dup")
    with pytest.raises(VersionNotFoundError, match="'ghost'"):
        call(spark, "create_tag", table="default.tg$branch_ghost", tag="x")
    assert listing(root) == before
    assert tag_json(warehouse, "tg", "dup") == snapshot_json(warehouse, "tg", 1)
    call(spark, "delete_tag", table="default.tg", tag="dup")
    spark.sql("CREATE TABLE paimon.default.tg_empty (id INT)")
    with pytest.raises(VersionNotFoundError, match="snapshot"):
        call(spark, "create_tag", table="default.tg_empty", tag="nothing")
    assert not (table_dir(warehouse, "tg_empty") / "tag").exists()


def test_a_tag_keeps_an_expired_snapshot_and_its_files_until_it_is_deleted(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.tg_keep (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    root = table_dir(warehouse, "tg_keep")
    spark.sql("INSERT INTO paimon.default.tg_keep VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    first_files = data_files(root)
    spark.sql("INSERT INTO paimon.default.tg_keep VALUES (3, 'c', 'x')")
    tagged_files = data_files(root)
    call(spark, "create_tag", table="default.tg_keep", tag="keep", snapshot=2)
    spark.sql("INSERT OVERWRITE paimon.default.tg_keep VALUES (4, 'd', 'x'), (5, 'e', 'y')")
    spark.sql("INSERT INTO paimon.default.tg_keep VALUES (6, 'f', 'y')")
    assert snapshot_ids(warehouse, "tg_keep") == [1, 2, 3, 4]
    later_files = data_files(root) - tagged_files
    assert len(first_files) == 2 and len(tagged_files) == 3 and len(later_files) == 3
    kept = [(1, "a", "x"), (2, "b", "y"), (3, "c", "x")]
    latest = [(4, "d", "x"), (5, "e", "y"), (6, "f", "y")]

    future = utc_seconds_text(int(time.time() * 1000) + 60_000)
    out = spark.sql(f"CALL paimon.sys.expire_snapshots(table => 'default.tg_keep', retain_max => 1, retain_min => 1, "
                    f"older_than => '{future}')").collect()
    assert [tuple(r) for r in out] == [(3,)]
    assert snapshot_ids(warehouse, "tg_keep") == [4]
    assert (root / "snapshot" / "EARLIEST").read_text().strip() == "4"
    # The overwrite removed the tagged snapshot's files, but the tag still reads them.
    assert data_files(root) == tagged_files | later_files
    assert rows(spark.sql("SELECT * FROM paimon.default.tg_keep VERSION AS OF 'keep'")) == kept
    assert rows(spark.read.option("scan.tag-name", "keep").table("paimon.default.tg_keep")) == kept
    assert oracle_rows_at(oracle, "tg_keep", {"scan.tag-name": "keep"}) == kept
    assert rows(spark.table("paimon.default.tg_keep")) == latest
    manifests_before = {p.name for p in (root / "manifest").iterdir()}

    call(spark, "delete_tag", table="default.tg_keep", tag="keep")
    assert not tag_file(warehouse, "tg_keep", "keep").exists()
    # Nothing else references the tagged snapshot's files now.
    assert data_files(root) == later_files
    assert rows(spark.table("paimon.default.tg_keep")) == latest
    assert oracle_rows(oracle, "tg_keep") == latest
    # Its manifests went too: only snapshot 4's remain, and orphan cleanup finds nothing left over.
    s4 = snapshot_json(warehouse, "tg_keep", 4)
    manifests_after = {p.name for p in (root / "manifest").iterdir()}
    assert manifests_after < manifests_before
    assert {s4["baseManifestList"], s4["deltaManifestList"]} <= manifests_after
    just_now = utc_seconds_text(int(time.time() * 1000) + 1000)
    time.sleep(1.1)  # older_than must lie in the past
    out = spark.sql(f"CALL paimon.sys.remove_orphan_files(table => 'default.tg_keep', older_than => '{just_now}', "
                    f"dry_run => true)").collect()
    assert out[0][0] == 0, [r[2] for r in out]


def test_tag_past_its_retention_is_deleted_by_the_next_commit(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.tg_ttl (id INT)")
    spark.sql("INSERT INTO paimon.default.tg_ttl VALUES (1)")
    call(spark, "create_tag", table="default.tg_ttl", tag="brief", time_retained="1 ms")
    call(spark, "create_tag", table="default.tg_ttl", tag="lasting", time_retained="1 d")
    call(spark, "create_tag", table="default.tg_ttl", tag="forever")
    time.sleep(0.01)
    spark.sql("INSERT INTO paimon.default.tg_ttl VALUES (2)")
    assert tag_names(warehouse, "tg_ttl") == ["forever", "lasting"]


def test_a_corrupt_tag_file_is_named_and_spares_reads_that_do_not_need_it(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.tg_corrupt (id INT)")
    spark.sql("INSERT INTO paimon.default.tg_corrupt VALUES (1)")
    call(spark, "create_tag", table="default.tg_corrupt", tag="broken")
    tag_file(warehouse, "tg_corrupt", "broken").write_text('{"version" : 3, "id" : ')
    with pytest.raises(CorruptFileError, match="tag/tag-broken"):
        spark.sql("SELECT * FROM paimon.default.tg_corrupt VERSION AS OF 'broken'").collect()
    with pytest.raises(CorruptFileError, match="tag/tag-broken"):
        spark.sql("SELECT * FROM paimon.default.`tg_corrupt$tags`").collect()
    assert rows(spark.table("paimon.default.tg_corrupt")) == [(1,)]
    assert rows(spark.sql("SELECT * FROM paimon.default.tg_corrupt VERSION AS OF 1")) == [(1,)]
