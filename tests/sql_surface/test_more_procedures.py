"""Paimon 1.4's procedures beyond the core ones, each with Paimon's arguments and result columns: partition expiry
(by procedure and after commits) and marking partitions done, tag expiry and automatic tags on demand, branches
renamed, consumers reset and cleared, rollbacks and tags by watermark, sort compaction, manifest compaction,
whole-database compaction, the repairs (`remove_unexisting_files`, `purge_files`), and copies of a table's snapshot
into another table (`copy`)."""

from __future__ import annotations

import datetime as dt
import json
import re
import time

import pytest

from conftest import oracle_rows, rows, table_dir
from history_util import call, snapshot_ids, tag_names
from paimon_spark import (BranchNotFoundError, InvalidIdentifierError, InvalidOptionError, SchemaMismatchError,
                          SnapshotNotFoundError, TableNotFoundError, UnsupportedFeatureError)


def days_ago(n: int) -> str:
    return (dt.date.today() - dt.timedelta(days=n)).isoformat()


def test_expire_partitions_by_their_values_or_their_update_time(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ep (id INT, dt STRING, h STRING) PARTITIONED BY (dt, h)")
    old, older, today = days_ago(3), days_ago(10), days_ago(0)
    spark.sql(f"INSERT INTO paimon.default.ep VALUES (1, '{older}', '01'), (2, '{old}', '02'), (3, '{today}', '03'), "
              "(4, 'not-a-date', '04')")
    before = snapshot_ids(warehouse, "ep")
    out = call(spark, "expire_partitions", table="default.ep", expiration_time="2 d", max_expires=1)
    assert out == [(f"dt={older}, h=01",)]
    out = call(spark, "expire_partitions", table="default.ep", expiration_time="2 d",
               timestamp_pattern="$dt $h:00:00", timestamp_formatter="yyyy-MM-dd HH:mm:ss")
    assert out == [(f"dt={old}, h=02",)]
    # A value that is no date is never expired; nothing due gives Paimon's one row.
    assert rows(spark.table("paimon.default.ep").select("id")) == [(3,), (4,)]
    assert call(spark, "expire_partitions", table="default.ep", expiration_time="2 d") == [("No expired partitions.",)]
    kinds = [json.loads((table_dir(warehouse, "ep") / "snapshot" / f"snapshot-{i}").read_text())["commitKind"]
             for i in snapshot_ids(warehouse, "ep") if i not in before]
    assert kinds == ["OVERWRITE", "OVERWRITE"]
    # update-time: by the newest file's creation time, so nothing just written is due.
    assert call(spark, "expire_partitions", table="default.ep", expiration_time="1 h",
                expire_strategy="update-time") == [("No expired partitions.",)]
    with pytest.raises(InvalidOptionError, match="partition.expiration-strategy"):
        call(spark, "expire_partitions", table="default.ep", expiration_time="1 d", expire_strategy="bogus")
    spark.sql("CREATE TABLE paimon.default.ep_flat (id INT)")
    with pytest.raises(InvalidOptionError, match="not partitioned"):
        call(spark, "expire_partitions", table="default.ep_flat", expiration_time="1 d")


def test_partitions_expire_after_commits_and_are_marked_done_after_batch_writes(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.auto_ep (id INT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES "
              "('partition.expiration-time' = '2 d', 'partition.expiration-check-interval' = '0 s', "
              "'partition.end-input-to-done' = 'true')")
    spark.sql(f"INSERT INTO paimon.default.auto_ep VALUES (1, '{days_ago(5)}'), (2, '{days_ago(0)}')")
    # The write's own commit was checked: the old partition went in an OVERWRITE right after it.
    assert rows(spark.table("paimon.default.auto_ep").select("id")) == [(2,)]
    done = json.loads((table_dir(warehouse, "auto_ep") / f"dt={days_ago(0)}" / "_SUCCESS").read_text())
    assert done["creationTime"] <= done["modificationTime"]
    call(spark, "mark_partition_done", table="default.auto_ep", partitions="dt=2030-01-01")
    assert (table_dir(warehouse, "auto_ep") / "dt=2030-01-01" / "_SUCCESS").exists()
    with pytest.raises(InvalidOptionError, match="every partition column"):
        call(spark, "mark_partition_done", table="default.auto_ep", partitions="id=1")
    with pytest.raises(UnsupportedFeatureError, match="http-report"):
        spark.sql("ALTER TABLE paimon.default.auto_ep SET TBLPROPERTIES ('partition.mark-done-action' = 'http-report')")
    # The actions that live in a metastore are refused without one, as Paimon does, before any is done.
    spark.sql("ALTER TABLE paimon.default.auto_ep SET TBLPROPERTIES "
              "('partition.mark-done-action' = 'success-file,done-partition')")
    with pytest.raises(UnsupportedFeatureError, match="Cannot mark done partition for table without metastore"):
        call(spark, "mark_partition_done", table="default.auto_ep", partitions="dt=2031-01-01")
    assert not (table_dir(warehouse, "auto_ep") / "dt=2031-01-01").exists()


def test_tags_expire_by_retention_or_age_and_automatic_tags_are_made_on_demand(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.et (id INT) TBLPROPERTIES ('tag.automatic-creation' = 'process-time', "
              "'tag.creation-period' = 'daily', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.et VALUES (1)")
    call(spark, "create_tag", table="default.et", tag="short", time_retained="1 s")
    call(spark, "create_tag", table="default.et", tag="kept")
    time.sleep(1.1)
    assert call(spark, "expire_tags", table="default.et") == [("short",)]
    assert call(spark, "expire_tags", table="default.et") == [("No expired tags.",)]
    future = (dt.datetime.now() + dt.timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S")
    assert call(spark, "expire_tags", table="default.et", older_than=future) == [("kept",)]
    # write-only: commits made no automatic tag; the procedure makes what a commit would have: the first snapshot
    # after the table's first period boundary tags the period before it, yesterday.
    assert tag_names(warehouse, "et") == []
    assert call(spark, "trigger_tag_automatic_creation", table="default.et") == [(True,)]
    assert tag_names(warehouse, "et") == [days_ago(1)]


def test_branches_renamed_and_consumers_reset_and_cleared(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.bc (id INT)")
    spark.sql("INSERT INTO paimon.default.bc VALUES (1)")
    spark.sql("INSERT INTO paimon.default.bc VALUES (2)")
    call(spark, "create_branch", table="default.bc", branch="dev")
    call(spark, "rename_branch", table="default.bc", from_branch="dev", to_branch="prod")
    assert [r[0] for r in spark.sql("SELECT branch_name FROM paimon.default.`bc$branches`").collect()] == ["prod"]
    with pytest.raises(BranchNotFoundError, match="'dev'"):
        call(spark, "rename_branch", table="default.bc", from_branch="dev", to_branch="x")
    with pytest.raises(InvalidOptionError, match="main"):
        call(spark, "rename_branch", table="default.bc", from_branch="main", to_branch="x")
    spark.sql("CALL paimon.sys.reset_consumer(table => 'default.bc', consumerId => 'job1', nextSnapshotId => 2)")
    spark.sql("CALL paimon.sys.reset_consumer(table => 'default.bc', consumerId => 'job2', nextSnapshotId => 1)")
    spark.sql("CALL paimon.sys.reset_consumer(table => 'default.bc', consumerId => 'keep', nextSnapshotId => 1)")
    assert rows(spark.sql("SELECT * FROM paimon.default.`bc$consumers`")) == [("job1", 2), ("job2", 1), ("keep", 1)]
    with pytest.raises(SnapshotNotFoundError, match="snapshot 9"):
        spark.sql("CALL paimon.sys.reset_consumer(table => 'default.bc', consumerId => 'job1', nextSnapshotId => 9)")
    spark.sql("CALL paimon.sys.reset_consumer(table => 'default.bc', consumerId => 'job2')")
    spark.sql("CALL paimon.sys.clear_consumers(table => 'default.bc', includingConsumers => 'j.*')")
    assert rows(spark.sql("SELECT consumer_id FROM paimon.default.`bc$consumers`")) == [("keep",)]
    spark.sql("CALL paimon.sys.clear_consumers(table => 'default.bc', excludingConsumers => 'nothing')")
    assert rows(spark.sql("SELECT consumer_id FROM paimon.default.`bc$consumers`")) == []


def test_sort_compaction_orders_each_partition_so_statistics_skip_files(spark, warehouse, oracle):
    spark.sql("CREATE TABLE paimon.default.sorted (x INT, y INT, s STRING, p INT) PARTITIONED BY (p)")
    # Four writes of interleaved values: every file spans the whole range of x and y.
    for w in range(4):
        values = ", ".join(f"({i * 4 + w}, {(i * 37) % 64}, 's{i}', {i % 2})" for i in range(64))
        spark.sql(f"INSERT INTO paimon.default.sorted VALUES {values}")
    expected = rows(spark.table("paimon.default.sorted"))

    for strategy, order_by in [("order", "x"), ("zorder", "x,y"), ("hilbert", "y,s")]:
        out = call(spark, "compact", table="default.sorted", order_strategy=strategy, order_by=order_by,
                   where="p = 0")
        assert out == [(True,)]
        assert rows(spark.table("paimon.default.sorted")) == expected, strategy
        kinds = spark.sql("SELECT commit_kind FROM paimon.default.`sorted$snapshots` ORDER BY snapshot_id DESC LIMIT 1")
        assert kinds.first()[0] == "OVERWRITE"
    # After `order` by x, partition 0's files hold disjoint ranges of x (shuffle partitions: 4).
    call(spark, "compact", table="default.sorted", order_strategy="order", order_by="x", partitions="p=0")
    def x(stats: str) -> int:  # Paimon's `{p=0, s=s0, x=0, y=0}`
        return int(re.search(r"\bx=(-?\d+)", stats).group(1))

    ranges = sorted((x(r[0]), x(r[1])) for r in spark.sql(
        "SELECT min_value_stats, max_value_stats FROM paimon.default.`sorted$files` WHERE partition = '{0}'").collect())
    assert len(ranges) > 1 and all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges
    with pytest.raises(InvalidOptionError, match="order_by column 'p' is a partition column"):
        call(spark, "compact", table="default.sorted", order_strategy="zorder", order_by="p")
    with pytest.raises(InvalidOptionError, match="order_by column 'nope'"):
        call(spark, "compact", table="default.sorted", order_strategy="order", order_by="nope")
    with pytest.raises(InvalidOptionError, match="partitions and where cannot be used together"):
        call(spark, "compact", table="default.sorted", partitions="p=0", where="p = 1")
    with pytest.raises(InvalidOptionError, match="partition columns"):
        call(spark, "compact", table="default.sorted", where="x = 1")
    # With deletion vectors the marked rows are not written back, and the rewritten files' vectors go.
    spark.sql("CREATE TABLE paimon.default.sorted_dv (x INT, p INT) PARTITIONED BY (p) TBLPROPERTIES "
              "('deletion-vectors.enabled' = 'true')")
    spark.sql("INSERT INTO paimon.default.sorted_dv VALUES " + ", ".join(f"({(i * 7) % 20}, {i % 2})" for i in range(20)))
    spark.sql("DELETE FROM paimon.default.sorted_dv WHERE x < 5")
    kept = rows(spark.table("paimon.default.sorted_dv"))
    assert spark.sql("SELECT count(*) FROM paimon.default.`sorted_dv$table_indexes`").first()[0] > 0
    call(spark, "compact", table="default.sorted_dv", order_strategy="order", order_by="x")
    assert rows(spark.table("paimon.default.sorted_dv")) == kept and oracle_rows(oracle, "sorted_dv") == kept
    assert spark.sql("SELECT count(*) FROM paimon.default.`sorted_dv$table_indexes`").first()[0] == 0
    spark.sql("CREATE TABLE paimon.default.sorted_pk (id INT, v INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    with pytest.raises(UnsupportedFeatureError, match="append tables"):
        call(spark, "compact", table="default.sorted_pk", order_strategy="order", order_by="v")


def test_manifest_and_database_compaction(spark, warehouse):
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.cdb")
    spark.sql("CREATE TABLE paimon.cdb.a (id INT) TBLPROPERTIES ('write-only' = 'true')")
    spark.sql("CREATE TABLE paimon.cdb.b (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'write-only' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO paimon.cdb.a VALUES ({i})")
        spark.sql(f"INSERT INTO paimon.cdb.b VALUES ({i}, 'v')")
    manifests = spark.sql("SELECT count(*) FROM paimon.cdb.`a$manifests`").first()[0]
    assert call(spark, "compact_manifest", table="cdb.a") == [(True,)]
    assert spark.sql("SELECT count(*) FROM paimon.cdb.`a$manifests`").first()[0] < manifests
    assert spark.sql("SELECT commit_kind FROM paimon.cdb.`a$snapshots` ORDER BY snapshot_id DESC").first()[0] == "COMPACT"
    out = spark.sql("CALL paimon.sys.compact_database(including_databases => 'cdb', excluding_tables => 'cdb.a')")
    assert out.collect()[0][0] == "Compact database finished. Success: 1, Failed: 0"
    assert spark.sql("SELECT max(level) FROM paimon.cdb.`b$files`").first()[0] == 5


def test_repairs_remove_missing_files_and_purge_a_table(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.rep (id INT, p INT) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.rep VALUES (1, 1), (2, 2)")
    lost = next((table_dir(warehouse, "rep") / "p=1" / "bucket-0").glob("data-*"))
    lost.unlink()
    out = call(spark, "remove_unexisting_files", table="default.rep", dry_run=True)
    assert [r[0].rsplit("/", 1)[1] for r in out] == [lost.name]
    call(spark, "remove_unexisting_files", table="default.rep")
    assert rows(spark.table("paimon.default.rep")) == [(2, 2)]
    call(spark, "create_tag", table="default.rep", tag="t")
    call(spark, "create_branch", table="default.rep", branch="b")
    assert call(spark, "purge_files", table="default.rep") == [("Success",)]
    assert rows(spark.table("paimon.default.rep")) == [] and tag_names(warehouse, "rep") == []
    assert len(snapshot_ids(warehouse, "rep")) == 1
    assert not list(table_dir(warehouse, "rep").glob("p=*/bucket-0/data-*"))
    # A filesystem catalog keeps nothing besides the files: there is nothing to repair, as in Paimon.
    with pytest.raises(UnsupportedFeatureError, match="nothing to repair"):
        call(spark, "repair", database_or_table="default.rep")


def test_rollback_and_tags_by_watermark(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.wm (id INT)")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO paimon.default.wm VALUES ({i})")
    # A batch write sets no watermark (Flink's writers do): give snapshots 1..3 watermarks 100, 200, 300.
    for i in range(1, 4):
        f = table_dir(warehouse, "wm") / "snapshot" / f"snapshot-{i}"
        snap = json.loads(f.read_text())
        snap["watermark"] = i * 100
        f.write_text(json.dumps(snap))
    out = call(spark, "create_tag_from_watermark", table="default.wm", tag="w", watermark=150)
    assert out[0][:2] == ("w", 2) and out[0][3] == "200"
    assert call(spark, "rollback_to_watermark", table="default.wm", watermark=250) == [(3, 2)]
    assert rows(spark.table("paimon.default.wm")) == [(1,), (2,)]
    with pytest.raises(SnapshotNotFoundError, match="watermark at or below 50"):
        call(spark, "rollback_to_watermark", table="default.wm", watermark=50)


def test_copy_a_snapshot_with_its_deletion_vectors_and_schemas_into_other_tables_and_catalogs(spark, warehouse, oracle,
                                                                                              tmp_path):
    spark.sql("CREATE TABLE paimon.default.cp (id INT, v STRING, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES "
              "('deletion-vectors.enabled' = 'true')")
    spark.sql("INSERT INTO paimon.default.cp VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
    spark.sql("ALTER TABLE paimon.default.cp DROP COLUMN v")  # the first files keep schema 0, with v
    spark.sql("INSERT INTO paimon.default.cp VALUES (4, 'd2'), (5, 'd3')")
    spark.sql("DELETE FROM paimon.default.cp WHERE id = 2")  # a deletion vector, of a file the copy renames
    expected = rows(spark.table("paimon.default.cp"))
    assert expected == [(1, "d1"), (3, "d2"), (4, "d2"), (5, "d3")]
    # A new target in a new database; copied twice, the second copy replaces the first's partitions.
    for _ in range(2):
        assert call(spark, "copy", source_table="default.cp", target_table="cpdb.cp2") == [(True,)]
        assert rows(spark.table("paimon.cpdb.cp2")) == expected and oracle_rows(oracle, "cp2", db="cpdb") == expected
    # Partitions `where` selects, into another catalog of the session, where the target exists with one more column.
    spark.conf.set("spark.sql.catalog.other", "paimonspark.spark.PaimonCatalog")
    spark.conf.set("spark.sql.catalog.other.warehouse", str(tmp_path / "other"))
    # Its columns are the source's first ones (same ids), so the files written before v was dropped show their v.
    spark.sql("CREATE TABLE other.default.cp3 (id INT, v STRING, dt STRING, extra INT) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    spark.sql("INSERT INTO other.default.cp3 VALUES (9, 'z', 'd1', 9), (8, 'y', 'd9', 8)")
    call(spark, "copy", source_table="default.cp", target_table="other.default.cp3", where="dt = 'd1' OR dt = 'd3'")
    assert rows(spark.table("other.default.cp3")) == [(1, "a", "d1", None), (5, None, "d3", None), (8, "y", "d9", 8)]
    assert rows(spark.sql("SELECT id FROM other.default.cp3 WHERE v = 'a'")) == [(1,)]  # statistics by column name
    # Bad input is refused, naming the argument, before anything is written.
    spark.sql("CREATE TABLE spark_catalog.default.plain (id INT) USING parquet")
    spark.sql("CREATE TABLE paimon.default.cp_other (id BIGINT, dt STRING) PARTITIONED BY (dt)")
    with pytest.raises(TableNotFoundError, match="source_table 'default.nope' does not exist") as e:
        call(spark, "copy", source_table="default.nope", target_table="default.t")
    assert e.value.value == "default.nope"
    with pytest.raises(InvalidIdentifierError, match="is not a Paimon table"):
        call(spark, "copy", source_table="spark_catalog.default.plain", target_table="default.t")
    with pytest.raises(InvalidIdentifierError, match="not a Paimon catalog"):
        call(spark, "copy", source_table="default.cp", target_table=f"paimon_path.`{tmp_path / 't'}`")
    with pytest.raises(InvalidOptionError, match="Only partition predicate is supported"):
        call(spark, "copy", source_table="default.cp", target_table="default.t", where="id = 1")
    with pytest.raises(SchemaMismatchError, match="is not compatible with existed paimon table"):
        call(spark, "copy", source_table="default.cp", target_table="default.cp_other")
    assert not spark.catalog.tableExists("paimon.default.t")
