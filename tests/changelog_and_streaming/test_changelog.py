"""Changes as a table's second face: the `input` changelog producer's files, `$audit_log`, `incremental-between`
reads, and Spark's changelog API (`CHANGES FROM VERSION`, `DataFrameReader.changes`), each checked against a model of
what every commit wrote, for every pair of snapshots."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import time

import pytest

from conftest import rows, table_dir
from history_util import snapshot_json
from paimon_spark import InvalidOptionError, UnsupportedFeatureError, VersionNotFoundError

KINDS = ("+I", "-U", "+U", "-D")
SPARK_TYPES = {"+I": "insert", "-U": "update_preimage", "+U": "update_postimage", "-D": "delete"}


class Changes:
    """What each commit of a table wrote, as (kind, id, v) rows: the model every read of changes is checked with."""

    def __init__(self, spark, name: str):
        self.spark, self.name = spark, name
        self.commits: dict[int, list[tuple]] = {}

    def write(self, records: list[tuple], expected: list[tuple] | None = None) -> int:
        """Writes (kind, id, v) records in one commit; `expected` is what the commit's changes hold, if not them."""
        values = ", ".join(f"({i}, {'NULL' if v is None else repr(v)}, '{k}')" for k, i, v in records)
        self.spark.sql(f"INSERT INTO paimon.default.{self.name} VALUES {values}")
        sid = self.spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{self.name}$snapshots`").first()[0]
        self.commits[sid] = sorted(records if expected is None else expected, key=str)
        return sid

    def between(self, start: int, end: int, retractions: bool = True) -> list[tuple]:
        got = [r for sid in range(start + 1, end + 1) for r in self.commits.get(sid, [])]
        return sorted((r for r in got if retractions or r[0] in ("+I", "+U")), key=str)


def audit(spark, name: str, **options: str) -> list[tuple]:
    reader = spark.read
    for k, v in options.items():
        reader = reader.option(k, v)
    return sorted((tuple(r) for r in reader.table(f"paimon.default.`{name}$audit_log`").select("rowkind", "id", "v")
                   .collect()), key=str)


@pytest.fixture(scope="module")
def input_table(spark):
    spark.sql("CREATE TABLE paimon.default.chg_input (id INT, v STRING, op STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = 'input', 'rowkind.field' = 'op')")
    c = Changes(spark, "chg_input")
    c.write([("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c")])
    # One commit holding two versions of key 4 and an update pair: the input producer keeps every record.
    c.write([("-U", 1, "a"), ("+U", 1, "a2"), ("+I", 4, "d"), ("+I", 4, "d2"), ("-D", 3, "c")])
    spark.sql("CALL paimon.sys.compact(table => 'default.chg_input')")
    c.write([("+I", 2, "b2"), ("+I", 5, None)])
    spark.sql("CALL paimon.sys.create_tag(table => 'default.chg_input', tag => 'four', snapshot => 4)")
    return c


def test_input_producer_writes_every_record_into_changelog_files(input_table, warehouse):
    root = table_dir(warehouse, "chg_input")
    assert sorted(input_table.commits) == [1, 2, 4]
    assert snapshot_json(warehouse, "chg_input", 3)["commitKind"] == "COMPACT"
    for sid, records in input_table.commits.items():
        s = snapshot_json(warehouse, "chg_input", sid)
        assert s["changelogRecordCount"] == len(records) and s["changelogManifestList"], sid
    # The compaction carries no changelog, as with Paimon's input producer.
    assert "changelogManifestList" not in snapshot_json(warehouse, "chg_input", 3)
    changelog_files = list(root.glob("bucket-*/changelog-*.parquet"))
    assert changelog_files and all(p.stat().st_size > 0 for p in changelog_files)


def test_audit_log_over_every_range_equals_the_model(spark, input_table):
    for start, end in itertools.combinations_with_replacement(range(0, 5), 2):
        expected = [(k, i, v) for k, i, v in input_table.between(start, end)]
        got = audit(spark, "chg_input", **{"incremental-between": f"{start},{end}"})
        assert got == sorted(expected, key=str), (start, end)
        plain = spark.read.option("incremental-between", f"{start},{end}").table("paimon.default.chg_input")
        assert sorted((tuple(r) for r in plain.select("id", "v").collect()), key=str) == \
            sorted(((i, v) for k, i, v in input_table.between(start, end, retractions=False)), key=str), (start, end)


def test_audit_log_without_a_range_is_the_current_state_with_kinds(spark, input_table):
    # The full compaction of snapshot 3 dropped the deletion of key 3; key 1 keeps the kind it was written with.
    got = audit(spark, "chg_input")
    assert got == sorted([("+U", 1, "a2"), ("+I", 2, "b2"), ("+I", 4, "d2"), ("+I", 5, None)], key=str)
    # Before that compaction the deletion was still a row of its own.
    assert sorted(audit(spark, "chg_input", **{"scan.snapshot-id": "2"})) == \
        sorted([("+U", 1, "a2"), ("+I", 2, "b"), ("-D", 3, "c"), ("+I", 4, "d2")])
    assert rows(spark.sql("SELECT id FROM paimon.default.chg_input")) == [(1,), (2,), (4,), (5,)]


def test_tags_timestamps_and_scan_modes(spark, input_table, warehouse):
    assert audit(spark, "chg_input", **{"incremental-between": "1,four"}) == input_table.between(1, 4)
    millis = {sid: snapshot_json(warehouse, "chg_input", sid)["timeMillis"] for sid in (1, 2, 3, 4)}
    assert audit(spark, "chg_input", **{"incremental-between-timestamp": f"{millis[1]},{millis[4]}"}) == \
        input_table.between(1, 4)
    # A time between two commits falls back to the one before it.
    assert audit(spark, "chg_input", **{"incremental-between-timestamp": f"{millis[2]},{millis[4] - 1}"}) == \
        input_table.between(2, 3)
    # delta: the commits' new data files, merged within each write, rather than the changelog.
    delta = audit(spark, "chg_input", **{"incremental-between": "1,2", "incremental-between-scan-mode": "delta"})
    assert delta == sorted([("+U", 1, "a2"), ("+I", 4, "d2"), ("-D", 3, "c")], key=str)


def test_diff_of_two_tags_or_snapshots_compares_states(spark, input_table):
    name = "paimon.default.chg_input"
    spark.sql("CALL paimon.sys.create_tag(table => 'default.chg_input', tag => 'one', snapshot => 1)")
    # Two tags are compared as states, as in Paimon: a key's changes in between net out to one change.
    diff = [("-U", 1, "a"), ("+U", 1, "a2"), ("-U", 2, "b"), ("+U", 2, "b2"), ("-D", 3, "c"), ("+I", 4, "d2"),
            ("+I", 5, None)]
    assert audit(spark, "chg_input", **{"incremental-between": "one,four"}) == sorted(diff, key=str)
    assert audit(spark, "chg_input", **{"incremental-between": "1,4", "incremental-between-scan-mode": "diff"}) == \
        sorted(diff, key=str)
    assert rows(spark.read.option("incremental-between", "one,four").table(name).select("id", "v")) == \
        [(1, "a2"), (2, "b2"), (4, "d2"), (5, None)]
    # ... unless the tags are to name the commits between their snapshots.
    assert audit(spark, "chg_input", **{"incremental-between": "one,four",
                                        "incremental-between-tag-to-snapshot": "true"}) == input_table.between(1, 4)
    assert audit(spark, "chg_input", **{"incremental-between": "four,four"}) == []
    with pytest.raises(InvalidOptionError, match="starts at snapshot 4, after its end 1"):
        audit(spark, "chg_input", **{"incremental-between": "four,one"})
    spark.sql("CALL paimon.sys.delete_tag(table => 'default.chg_input', tag => 'one')")


def test_diff_of_an_append_table_cancels_rows_a_compaction_rewrote(spark):
    name = "paimon.default.chg_append_diff"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('compaction.min.file-num' = '2', "
              "'write-only' = 'true')")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'a'), ({i * 10}, 'b')")
    assert spark.sql("CALL paimon.sys.compact(table => 'default.chg_append_diff')").first()[0]
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (7, 'c')")
    def diff(start, end, table=name):
        df = spark.read.option("incremental-between", f"{start},{end}").option("incremental-between-scan-mode", "diff")
        return rows(df.table(table))
    # The compaction rewrote snapshot 1's rows into a new file: they are in both states and cancel out; a row
    # appended again is a change of its own.
    assert diff(1, 5) == [(1, "a"), (2, "a"), (3, "a"), (7, "c"), (20, "b"), (30, "b")]
    assert diff(4, 4) == [] and diff(3, 4) == []
    spark.sql(f"INSERT OVERWRITE {name} VALUES (2, 'a'), (8, 'd')")
    assert diff(5, 6, f"paimon.default.`chg_append_diff$audit_log`") == sorted(
        [("-D", 1, "a"), ("-D", 1, "a"), ("-D", 3, "a"), ("-D", 7, "c"), ("-D", 10, "b"), ("-D", 20, "b"),
         ("-D", 30, "b"), ("+I", 8, "d")])


def test_spark_changes_api_maps_kinds_and_commits(spark, input_table, warehouse):
    name = "paimon.default.chg_input"
    def changes(df):
        return sorted((tuple(r) for r in df.select("id", "v", "_change_type", "_commit_version").collect()), key=str)
    def model(start, end):
        return sorted(((i, v, SPARK_TYPES[k], sid) for sid in range(start, end + 1)
                       for k, i, v in input_table.commits.get(sid, [])), key=str)
    assert changes(spark.sql(f"SELECT * FROM {name} CHANGES FROM VERSION 2 TO VERSION 4")) == model(2, 4)
    assert changes(spark.sql(f"SELECT * FROM {name} CHANGES FROM VERSION 1 EXCLUSIVE TO VERSION 4 EXCLUSIVE")) == \
        model(2, 3)
    assert changes(spark.sql(f"SELECT * FROM {name} CHANGES FROM VERSION 'four'")) == model(4, 4)
    assert changes(spark.read.option("startingVersion", 1).option("endingVersion", 2).changes(name)) == model(1, 2)
    assert changes(spark.read.option("startingVersion", 1).changes(name)) == model(1, 4)
    commit_ts = spark.sql(f"SELECT _commit_timestamp FROM {name} CHANGES FROM VERSION 2 TO VERSION 2").distinct()
    expected_ts = dt.datetime.fromtimestamp(snapshot_json(warehouse, "chg_input", 2)["timeMillis"] / 1000)
    assert [r[0] for r in commit_ts.collect()] == [expected_ts]
    t2 = expected_ts.strftime("%Y-%m-%d %H:%M:%S.%f")
    assert changes(spark.sql(f"SELECT * FROM {name} CHANGES FROM TIMESTAMP '{t2}' TO TIMESTAMP '{t2}'")) == model(2, 2)
    # Net changes per key, computed by Spark from the declared row id: key 3, inserted in commit 1 and deleted in
    # 2, nets to nothing from 1 on and to a deletion from 2 on; key 1's -U/+U pair is an update.
    def net(start):
        df = spark.read.option("startingVersion", start).option("deduplicationMode", "netChanges").changes(name)
        return sorted((tuple(r) for r in df.select("id", "_change_type").collect()), key=str)
    assert (3, "delete") not in net(1) and (5, "insert") in net(1)
    assert (3, "delete") in net(2) and {(1, "delete"), (1, "insert")} <= set(net(2))


def test_changes_of_an_append_table_and_through_spark_catalog(spark):
    spark.sql("CREATE TABLE paimon.default.chg_append (id INT, v STRING)")
    spark.sql("INSERT INTO paimon.default.chg_append VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO paimon.default.chg_append VALUES (3, 'c')")
    got = spark.sql("SELECT id, _change_type, _commit_version FROM paimon.default.chg_append CHANGES FROM VERSION 1")
    assert rows(got) == [(1, "insert", 1), (2, "insert", 1), (3, "insert", 2)]
    assert rows(spark.read.option("incremental-between", "1,2").table("paimon.default.chg_append")) == [(3, "c")]
    assert rows(spark.sql("SELECT * FROM paimon.default.`chg_append$audit_log`")) == \
        [("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c")]
    spark.sql("CREATE TABLE spark_catalog.default.chg_session (id INT, v STRING) USING paimon "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'changelog-producer' = 'input')")
    spark.sql("INSERT INTO spark_catalog.default.chg_session VALUES (1, 'a')")
    spark.sql("INSERT INTO spark_catalog.default.chg_session VALUES (1, 'b')")
    got = spark.sql("SELECT id, v, _change_type, _commit_version FROM spark_catalog.default.chg_session "
                    "CHANGES FROM VERSION 2 TO VERSION 2")
    assert rows(got) == [(1, "b", "insert", 2)]


def test_none_producer_reads_each_append_commits_new_files(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.chg_none (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1')")
    spark.sql("INSERT INTO paimon.default.chg_none VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO paimon.default.chg_none VALUES (1, 'a2'), (1, 'a3')")
    assert "changelogManifestList" not in snapshot_json(warehouse, "chg_none", 2)
    assert not list(table_dir(warehouse, "chg_none").glob("bucket-*/changelog-*"))
    # The commit's level-0 file holds one version per key: the write merged (1, a2) away.
    assert audit(spark, "chg_none", **{"incremental-between": "1,2"}) == [("+I", 1, "a3")]
    # auto is delta without a producer; changelog mode then finds no changelog files.
    assert audit(spark, "chg_none", **{"incremental-between": "1,2", "incremental-between-scan-mode": "changelog"}) == []


def test_bad_ranges_and_options_are_typed_errors(spark, input_table, warehouse):
    name = "paimon.default.chg_input"
    with pytest.raises(InvalidOptionError, match="starts at snapshot 3, after its end 2"):
        spark.read.option("incremental-between", "3,2").table(name).collect()
    with pytest.raises(InvalidOptionError, match="two values"):
        spark.read.option("incremental-between", "3").table(name).collect()
    with pytest.raises(VersionNotFoundError, match=r"up to 4 \(the earliest retained snapshot is 1\)"):
        spark.read.option("incremental-between", "1,9").table(name).collect()
    with pytest.raises(VersionNotFoundError, match="'nope'"):
        spark.read.option("incremental-between", "1,nope").table(name).collect()
    with pytest.raises(InvalidOptionError, match="incremental-between-scan-mode"):
        spark.read.option("incremental-between", "1,2").option("incremental-between-scan-mode", "all").table(name).collect()
    with pytest.raises(InvalidOptionError, match="incremental-between-tag-to-snapshot"):
        spark.read.option("incremental-between", "1,2").option("incremental-between-tag-to-snapshot", "yes") \
            .table(name).collect()
    with pytest.raises(InvalidOptionError, match="both name a point in history|read as of snapshot|cannot be used with"):
        spark.read.option("incremental-between", "1,2").option("scan.snapshot-id", "1").table(name).collect()
    with pytest.raises(VersionNotFoundError, match="after snapshot 8"):
        spark.sql(f"SELECT * FROM {name} CHANGES FROM VERSION 9").collect()
    with pytest.raises(InvalidOptionError, match="changelog-producer"):
        spark.sql("CREATE TABLE paimon.default.chg_bad (id INT) TBLPROPERTIES ('primary-key' = 'id', "
                  "'bucket' = '1', 'changelog-producer' = 'always')")
    before = snapshot_json(warehouse, "chg_input", 4)
    with pytest.raises(InvalidOptionError, match="changelog-producer"):
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('changelog-producer' = 'sometimes')")
    assert json.dumps(snapshot_json(warehouse, "chg_input", 4)) == json.dumps(before)
    assert spark.sql(f"SHOW TBLPROPERTIES {name} ('changelog-producer')").first()[1] == "input"


def test_expiry_deletes_the_changelog_of_expired_snapshots_only(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.chg_expire (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'changelog-producer' = 'input')")
    for i in range(4):
        spark.sql(f"INSERT INTO paimon.default.chg_expire VALUES ({i}, 'v{i}')")
    root = table_dir(warehouse, "chg_expire")
    assert len(list(root.glob("bucket-0/changelog-*"))) == 4
    spark.sql("CALL paimon.sys.expire_snapshots(table => 'default.chg_expire', retain_max => 2, retain_min => 1)")
    assert len(list(root.glob("bucket-0/changelog-*"))) == 2
    assert audit(spark, "chg_expire", **{"incremental-between": "2,4"}) == [("+I", 2, "v2"), ("+I", 3, "v3")]
    now = spark.sql("SELECT date_format(current_timestamp(), 'yyyy-MM-dd HH:mm:ss')").first()[0]
    orphans = spark.sql("CALL paimon.sys.remove_orphan_files(table => 'default.chg_expire', "
                        f"older_than => '{now}', dry_run => true)").collect()
    assert not [r for r in orphans if "changelog-" in str(r)]


def test_changelog_outlives_snapshots_when_its_retention_is_longer(spark, warehouse, tmp_path):
    name = "chg_decoupled"
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'changelog-producer' = 'input', 'snapshot.num-retained.min' = '1', "
              "'snapshot.num-retained.max' = '2', 'changelog.num-retained.min' = '1', 'changelog.num-retained.max' = '3', "
              "'num-sorted-run.compaction-trigger' = '20')")
    for i in range(1, 7):
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES ({i}, 'v{i}')")
    root = table_dir(warehouse, name)
    # Expiry after each commit kept snapshots 5 and 6, and the changes of 4 as a long-lived changelog (the newest
    # changelog stays until a newer one exists); the changes of 1 to 3 went with their changelog files.
    assert sorted(p.name for p in (root / "snapshot").glob("snapshot-*")) == ["snapshot-5", "snapshot-6"]
    assert sorted(p.name for p in (root / "changelog").iterdir()) == ["EARLIEST", "LATEST", "changelog-4"]
    assert (root / "changelog" / "EARLIEST").read_text().strip() == "4"
    assert json.loads((root / "changelog" / "changelog-4").read_text())["id"] == 4
    assert len(list(root.glob("bucket-0/changelog-*"))) == 3
    assert audit(spark, name, **{"incremental-between": "3,6"}) == [("+I", 4, "v4"), ("+I", 5, "v5"), ("+I", 6, "v6")]
    with pytest.raises(VersionNotFoundError, match=r"earliest retained snapshot is 4"):
        audit(spark, name, **{"incremental-between": "2,6"})
    # A stream starts from the changelog, and one starting before it says what is left.
    got = []
    q = (spark.readStream.option("scan.snapshot-id", "4").table(f"paimon.default.{name}").writeStream
         .foreachBatch(lambda df, _: got.extend(tuple(r) for r in df.collect()))
         .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    q.awaitTermination()
    assert sorted(got) == [(4, "v4"), (5, "v5"), (6, "v6")]
    with pytest.raises(Exception, match="earliest retained snapshot is 4"):
        (spark.readStream.option("scan.snapshot-id", "2").table(f"paimon.default.{name}").writeStream
         .foreachBatch(lambda df, _: None).option("checkpointLocation", str(tmp_path / "cp2"))
         .trigger(availableNow=True).start().awaitTermination())
    # Orphan cleanup knows what the changelog still names.
    time.sleep(1.1)
    now = spark.sql("SELECT date_format(current_timestamp(), 'yyyy-MM-dd HH:mm:ss')").first()[0]
    orphans = spark.sql(f"CALL paimon.sys.remove_orphan_files(table => 'default.{name}', older_than => '{now}')")
    assert not [r for r in orphans.collect() if "changelog" in str(r)]
    assert audit(spark, name, **{"incremental-between": "3,4"}) == [("+I", 4, "v4")]
    assert spark.sql(f"CALL paimon.sys.expire_changelogs(table => 'default.{name}', delete_all => true)").first()[0] == 1
    assert not list((root / "changelog").iterdir()) and len(list(root.glob("bucket-0/changelog-*"))) == 2


def test_binlog_pairs_updates_into_before_and_after_arrays(spark, input_table):
    got = rows(spark.read.option("incremental-between", "1,2").table("paimon.default.`chg_input$binlog`"))
    assert got == sorted([("+U", [1, 1], ["a", "a2"], ["-U", "+U"]), ("+I", [4], ["d"], ["+I"]),
                          ("+I", [4], ["d2"], ["+I"]), ("-D", [3], ["c"], ["-D"])], key=str)
    assert spark.table("paimon.default.`chg_input$binlog`").schema.simpleString() == \
        "struct<rowkind:string,id:array<int>,v:array<string>,op:array<string>>"
    assert len(rows(spark.table("paimon.default.`chg_input$binlog`"))) == 4


@pytest.mark.parametrize("producer", ["input", "lookup"])
def test_pypaimon_streams_our_changelog_with_the_same_kinds(spark, oracle, producer):
    """pypaimon's streaming scan reads each snapshot's changelog files (with row kinds) as its follow-up plans."""
    name = f"chg_py_{producer}"
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING, op STRING) TBLPROPERTIES ('primary-key' = 'id', "
              f"'bucket' = '2', 'changelog-producer' = '{producer}', 'rowkind.field' = 'op')")
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a', '+I'), (2, 'b', '+I'), (3, 'c', '+I')")
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a2', '+I'), (3, 'c', '-D'), (4, 'd', '+I')")
    latest = spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots`").first()[0]
    ours = audit(spark, name, **{"incremental-between": f"0,{latest}"})
    builder = oracle.get_table(f"default.{name}").new_stream_read_builder().with_include_row_kind(True)
    scan = builder.new_streaming_scan()
    scan.next_snapshot_id = 1  # follow-up plans from the first snapshot on, instead of a full read of the latest
    read, plans, got = builder.new_read(), scan.stream_sync(), []
    while scan.next_snapshot_id <= latest:
        got += [(r["_row_kind"], r["id"], r["v"]) for r in read.to_arrow(next(plans).splits()).to_pylist()]
    assert sorted(got, key=str) == ours
    if producer == "lookup":
        assert ("-U", 1, "a") in ours and ("+U", 1, "a2") in ours and ("-D", 3, "c") in ours


def test_we_read_the_changelog_pypaimon_writes(spark, oracle, warehouse):
    import pyarrow as pa
    from pypaimon import Schema

    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string())])
    oracle.create_database("default", True)
    oracle.create_table("default.chg_from_py", Schema.from_pyarrow_schema(
        schema, primary_keys=["id"], options={"bucket": "1", "changelog-producer": "input"}), False)
    for values in ([(1, "a"), (2, "b")], [(1, "a2"), (3, "c")]):
        builder = oracle.get_table("default.chg_from_py").new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.Table.from_pylist([{"id": i, "v": v} for i, v in values], schema=schema))
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()
    assert snapshot_json(warehouse, "chg_from_py", 2)["changelogRecordCount"] == 2
    assert audit(spark, "chg_from_py", **{"incremental-between": "0,2"}) == \
        sorted([("+I", 1, "a"), ("+I", 2, "b"), ("+I", 1, "a2"), ("+I", 3, "c")], key=str)
    got = spark.sql("SELECT id, v, _change_type, _commit_version FROM paimon.default.chg_from_py "
                    "CHANGES FROM VERSION 2 TO VERSION 2")
    assert rows(got) == [(1, "a2", "insert", 2), (3, "c", "insert", 2)]
