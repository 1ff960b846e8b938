"""DELETE, UPDATE, MERGE INTO and TRUNCATE: one commit each, only the files that hold a changed row rewritten."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pyspark.errors import AnalysisException

from conftest import SUPPORT, commit_kinds, oracle_rows, rows
from paimon_spark import CommitConflictError, InvalidDataError, UnsupportedFeatureError

T = "paimon.default.{}"


def files(spark, name):
    return {r[0] for r in spark.sql(f"SELECT file_path FROM paimon.default.`{name}$files`").collect()}


def make_append_table(spark, name):
    """Three partitions, two files each: ids 1-6 in the first insert, 11-16 in the second."""
    spark.sql(f"CREATE TABLE {T.format(name)} (id INT, v STRING, p INT) PARTITIONED BY (p)")
    for base in (0, 10):
        spark.sql(f"INSERT INTO {T.format(name)} VALUES " +
                  ", ".join(f"({base + i}, 'v{base + i}', {(i - 1) // 2})" for i in range(1, 7)))


def test_delete_rewrites_only_the_files_holding_a_matching_row(spark, warehouse, oracle):
    make_append_table(spark, "del")
    before = files(spark, "del")
    spark.sql("DELETE FROM paimon.default.del WHERE id = 12")
    after = files(spark, "del")
    # One file held id 12 (partition 0 of the second insert): statistics rule the others out, so it
    # alone is replaced, by one file.
    assert len(before - after) == 1 and len(after - before) == 1
    assert all("/p=0/" in f for f in (before - after) | (after - before))
    assert commit_kinds(warehouse, "del")[-1] == "OVERWRITE"
    expected = [(i, f"v{i}", (i % 10 - 1) // 2) for i in (1, 2, 3, 4, 5, 6, 11, 13, 14, 15, 16)]
    assert rows(spark.sql("SELECT * FROM paimon.default.del")) == expected
    assert oracle_rows(oracle, "del", ["id", "v", "p"]) == expected
    # A condition matching nothing commits nothing.
    snapshots = len(commit_kinds(warehouse, "del"))
    spark.sql("DELETE FROM paimon.default.del WHERE id = 99")
    assert len(commit_kinds(warehouse, "del")) == snapshots


def test_delete_of_whole_partitions_is_metadata_only(spark, warehouse):
    make_append_table(spark, "drop_part")
    before = files(spark, "drop_part")
    started = time.time()
    spark.sql("DELETE FROM paimon.default.drop_part WHERE p = 1")
    assert time.time() - started < 5
    after = files(spark, "drop_part")
    # Every file of p=1 is dropped and nothing is written.
    assert after == {f for f in before if "/p=1/" not in f} and after < before
    assert rows(spark.sql("SELECT DISTINCT p FROM paimon.default.drop_part")) == [(0,), (2,)]
    spark.sql("TRUNCATE TABLE paimon.default.drop_part")
    assert spark.table("paimon.default.drop_part").count() == 0
    assert commit_kinds(warehouse, "drop_part")[-2:] == ["OVERWRITE", "OVERWRITE"]


def test_update_and_merge_change_rows_in_one_commit_each(spark, warehouse, oracle):
    make_append_table(spark, "upd")
    spark.sql("UPDATE paimon.default.upd SET v = upper(v) WHERE id IN (1, 16)")
    assert rows(spark.sql("SELECT id, v FROM paimon.default.upd WHERE id IN (1, 2, 16)")) == [
        (1, "V1"), (2, "v2"), (16, "V16")]
    spark.createDataFrame([(1, "one", 0), (3, "gone", 1), (40, "new", 2), (41, "skip", 2)], "id INT, v STRING, p INT") \
        .createOrReplaceTempView("changes")
    kinds = len(commit_kinds(warehouse, "upd"))
    spark.sql("""
        MERGE INTO paimon.default.upd t USING changes s ON t.id = s.id
        WHEN MATCHED AND s.v = 'gone' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v
        WHEN NOT MATCHED AND s.v <> 'skip' THEN INSERT *
        WHEN NOT MATCHED BY SOURCE AND t.id > 14 THEN UPDATE SET v = 'orphan'
        WHEN NOT MATCHED BY SOURCE AND t.id = 14 THEN DELETE
    """)
    assert len(commit_kinds(warehouse, "upd")) == kinds + 1
    expected = [(1, "one", 0), (2, "v2", 0), (4, "v4", 1), (5, "v5", 2), (6, "v6", 2), (11, "v11", 0), (12, "v12", 0),
                (13, "v13", 1), (15, "orphan", 2), (16, "orphan", 2), (40, "new", 2)]
    assert rows(spark.sql("SELECT * FROM paimon.default.upd")) == expected
    assert oracle_rows(oracle, "upd", ["id", "v", "p"]) == expected
    # A source row matching two target rows is Spark's error, and nothing is committed.
    spark.createDataFrame([(2, "x", 0), (2, "y", 0)], "id INT, v STRING, p INT").createOrReplaceTempView("dupes")
    kinds = len(commit_kinds(warehouse, "upd"))
    with pytest.raises(Exception, match="MERGE_CARDINALITY_VIOLATION"):
        spark.sql("MERGE INTO paimon.default.upd t USING dupes s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    assert len(commit_kinds(warehouse, "upd")) == kinds


def test_two_processes_changing_the_same_file_one_fails_and_no_update_is_lost(spark, warehouse, tmp_path):
    spark.sql("CREATE TABLE paimon.default.race (id INT, v STRING)")
    # One file holds every row, so both statements rewrite it.
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id INT, v STRING").coalesce(1) \
        .writeTo("paimon.default.race").append()
    assert len(files(spark, "race")) == 1
    go = tmp_path / "go"
    worker = subprocess.Popen(
        [sys.executable, str(SUPPORT / "dml_worker.py"), str(warehouse), str(go),
         "UPDATE paimon.default.race SET v = 'other process' WHERE id = 1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.time() + 180
    while not Path(f"{go}.ready").exists():
        assert time.time() < deadline and worker.poll() is None, "the worker process did not start"
        time.sleep(0.1)

    # This statement reads the table's one file, then, while writing it back, lets the other process
    # go (the UDF on the row it changes) and waits until that process has replaced the same file.
    done = Path(f"{go}.done")

    def after_the_other_process(v):
        if v != "b":
            return v
        go.touch()
        deadline = time.time() + 120
        while not done.exists() and time.time() < deadline:
            time.sleep(0.1)
        return v.upper()

    spark.udf.register("slowly", after_the_other_process, "string")
    outcome = {}

    def slow_update():
        try:
            spark.sql("UPDATE paimon.default.race SET v = slowly(v) WHERE id = 2")
            outcome["slow"] = "committed"
        except Exception as e:  # noqa: BLE001 - the assertion below names what was expected
            outcome["slow"] = e

    thread = threading.Thread(target=slow_update)
    thread.start()
    assert worker.communicate(timeout=180)[0].strip().splitlines()[-1] == "committed"
    thread.join(timeout=120)
    assert isinstance(outcome["slow"], CommitConflictError), outcome
    assert "already removed" in str(outcome["slow"])
    # The other process's update stands; the failed statement changed nothing.
    assert rows(spark.sql("SELECT * FROM paimon.default.race")) == [(1, "other process"), (2, "b"), (3, "c")]


PK_TABLE = ("CREATE TABLE paimon.default.{name} (id INT, v STRING, p INT) PARTITIONED BY (p) "
            "TBLPROPERTIES ('primary-key' = 'id, p', 'bucket' = '{bucket}' {extra})")


@pytest.mark.parametrize("bucket", ["2", "-1"])
def test_primary_key_tables_write_only_the_changed_keys(spark, warehouse, oracle, bucket):
    name = f"keys_{bucket.replace('-', 'dyn')}"
    spark.sql(PK_TABLE.format(name=name, bucket=bucket, extra=", 'changelog-producer' = 'lookup'"))
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', 2), (5, 'e', 3)")
    start = spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots`").first()[0]
    spark.sql(f"DELETE FROM paimon.default.{name} WHERE id = 2")
    spark.sql(f"UPDATE paimon.default.{name} SET v = upper(v) WHERE id >= 4")
    spark.createDataFrame([(1, "x", 1), (9, "new", 2), (3, "del", 2)], "id INT, v STRING, p INT") \
        .createOrReplaceTempView("key_changes")
    spark.sql(f"""
        MERGE INTO paimon.default.{name} t USING key_changes s ON t.id = s.id AND t.p = s.p
        WHEN MATCHED AND s.v = 'del' THEN DELETE
        WHEN MATCHED THEN UPDATE SET *
        WHEN NOT MATCHED THEN INSERT *
    """)
    expected = [(1, "x", 1), (4, "D", 2), (5, "E", 3), (9, "new", 2)]
    assert rows(spark.sql(f"SELECT * FROM paimon.default.{name}")) == expected
    assert oracle_rows(oracle, name, ["id", "v", "p"]) == expected
    # Three statements, three APPEND commits of changed keys (each followed by its compaction).
    assert [k for k in commit_kinds(warehouse, name) if k != "COMPACT"] == ["APPEND"] * 4
    # The lookup changelog has each change with its before image.
    latest = spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots`").first()[0]
    changes = rows(spark.sql(f"SELECT _change_type, id, v FROM paimon.default.{name} "
                             f"CHANGES FROM VERSION {start} EXCLUSIVE TO VERSION {latest}"))
    assert changes == sorted([
        ("delete", 2, "b"), ("update_preimage", 4, "d"), ("update_postimage", 4, "D"),
        ("update_preimage", 5, "e"), ("update_postimage", 5, "E"), ("update_preimage", 1, "a"),
        ("update_postimage", 1, "x"), ("delete", 3, "c"), ("insert", 9, "new")], key=lambda r: (r[0], r[1]))

    # A key column cannot be assigned: the statement fails and nothing is committed.
    kinds = commit_kinds(warehouse, name)
    with pytest.raises(InvalidDataError, match="cannot assign primary-key column 'id'"):
        spark.sql(f"UPDATE paimon.default.{name} SET id = 100 WHERE id = 1")
    assert commit_kinds(warehouse, name) == kinds


def test_merge_engines_take_what_paimon_lets_them(spark, warehouse):
    spark.sql(PK_TABLE.format(name="partial", bucket="1", extra=", 'merge-engine' = 'partial-update', "
                              "'partial-update.remove-record-on-delete' = 'true'"))
    spark.sql("INSERT INTO paimon.default.partial VALUES (1, 'a', 1), (2, 'b', 1)")
    spark.sql("DELETE FROM paimon.default.partial WHERE id = 1")
    spark.sql("UPDATE paimon.default.partial SET v = 'B' WHERE id = 2")
    assert rows(spark.sql("SELECT * FROM paimon.default.partial")) == [(2, "B", 1)]
    for engine, statement in [("first-row", "UPDATE {t} SET v = 'z'"), ("aggregation", "MERGE INTO {t} USING {t} s "
                                                                        "ON {t}.id = s.id WHEN MATCHED THEN DELETE")]:
        name = engine.replace("-", "_")
        spark.sql(PK_TABLE.format(name=name, bucket="1", extra=f", 'merge-engine' = '{engine}'"))
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a', 1), (2, 'b', 2)")
        kinds = commit_kinds(warehouse, name)
        with pytest.raises(UnsupportedFeatureError, match=f"merge engine {engine}") as refused:
            spark.sql(statement.format(t=f"paimon.default.{name}"))
        assert commit_kinds(warehouse, name) == kinds
        # As Paimon's refusals, it is a java.lang.UnsupportedOperationException on the JVM side.
        unsupported = spark._jvm.java.lang.Class.forName("java.lang.UnsupportedOperationException")
        assert unsupported.isInstance(refused.value.java_exception)
        # Dropping a whole partition needs no merge: every engine takes it.
        spark.sql(f"DELETE FROM paimon.default.{name} WHERE p = 2")
        assert rows(spark.sql(f"SELECT id FROM paimon.default.{name}")) == [(1,)]
    # A DELETE their merge engines would not apply as -D rows rewrites the files it changes, as Paimon's does, where
    # each key of a bucket is in one file, merged: after a compaction, or where no two files' key ranges overlap.
    for name in ("first_row", "aggregation"):
        spark.sql(f"ALTER TABLE paimon.default.{name} SET TBLPROPERTIES ('write-only' = 'true')")
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES (0, 'c', 1), (4, 'd', 1)")  # keys 0..4 meet key 1's file
        kinds = commit_kinds(warehouse, name)
        with pytest.raises(UnsupportedFeatureError, match="please use 'COMPACT' procedure first"):
            spark.sql(f"DELETE FROM paimon.default.{name} WHERE id = 0")
        assert commit_kinds(warehouse, name) == kinds
        spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")
        spark.sql(f"DELETE FROM paimon.default.{name} WHERE id = 0")
        # first-row reads see level 0 only once compacted (as Paimon's): the rewrite compacts what it wrote.
        assert commit_kinds(warehouse, name)[-3:] == ({"first_row": ["COMPACT", "OVERWRITE", "COMPACT"]}
                                                      .get(name, ["APPEND", "COMPACT", "OVERWRITE"]))
        assert rows(spark.sql(f"SELECT id, v FROM paimon.default.{name}")) == [(1, "a"), (4, "d")]
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES (7, 'g', 1)")  # a level-0 file no other file's keys meet
        spark.sql(f"DELETE FROM paimon.default.{name} WHERE id = 7")
        assert rows(spark.sql(f"SELECT id, v FROM paimon.default.{name}")) == [(1, "a"), (4, "d")]
    # aggregation.remove-record-on-delete: a -D removes the key; a later version starts it again from the -D's values.
    spark.sql(PK_TABLE.format(name="agg_rm", bucket="1", extra=", 'merge-engine' = 'aggregation', "
                              "'aggregation.remove-record-on-delete' = 'true', 'fields.v.aggregate-function' = 'max'"))
    spark.sql("INSERT INTO paimon.default.agg_rm VALUES (1, 'a', 1), (2, 'b', 1)")
    spark.sql("INSERT INTO paimon.default.agg_rm VALUES (1, 'c', 1)")
    spark.sql("DELETE FROM paimon.default.agg_rm WHERE id = 1")
    assert rows(spark.sql("SELECT * FROM paimon.default.agg_rm")) == [(2, "b", 1)]
    spark.sql("CALL paimon.sys.compact(table => 'default.agg_rm')")
    assert rows(spark.sql("SELECT * FROM paimon.default.agg_rm")) == [(2, "b", 1)]


@pytest.mark.parametrize("engine, producer", [
    ("deduplicate", "lookup"), ("partial-update", "none"), ("partial-update", "lookup"), ("aggregation", "none"),
    ("first-row", "lookup")])
def test_dml_on_dynamic_bucket_tables_of_every_merge_engine(spark, oracle, engine, producer):
    """Paimon's default layout (bucket = -1) with each merge engine: a DELETE is applied as -D rows, or (where the
    engine takes none) by rewriting the compacted files, from the table's HASH index, never against an empty one."""
    name = f"dyn_{engine.replace('-', '_')}_{producer}"
    spark.sql(f"CREATE TABLE {T.format(name)} (id INT, v INT) TBLPROPERTIES ('primary-key' = 'id', "
              f"'merge-engine' = '{engine}', 'changelog-producer' = '{producer}', 'write-only' = 'true')")
    spark.sql(f"INSERT INTO {T.format(name)} VALUES (1, 10), (2, 20), (3, 30)")
    spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")
    spark.sql(f"DELETE FROM {T.format(name)} WHERE id = 1")
    expected = [(2, 20), (3, 30)]
    if engine in ("deduplicate", "partial-update"):
        spark.sql(f"UPDATE {T.format(name)} SET v = v + 1 WHERE id = 3")
        expected = [(2, 20), (3, 31)]
    spark.sql(f"INSERT INTO {T.format(name)} VALUES (1, 100), (4, 40)")
    spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")
    expected = sorted(expected + [(1, 100), (4, 40)])
    assert rows(spark.sql(f"SELECT * FROM {T.format(name)}")) == expected
    assert oracle_rows(oracle, name) == expected
    # Each key is in the HASH index once: the keys kept by a rewrite were not indexed again in another bucket.
    indexed = spark.sql(f"SELECT sum(row_count) FROM paimon.default.`{name}$table_indexes` "
                        "WHERE index_type = 'HASH'").first()[0]
    assert indexed == 4


def test_concurrent_statements_on_a_primary_key_table_both_land(spark):
    from concurrent.futures import ThreadPoolExecutor

    spark.sql(PK_TABLE.format(name="both", bucket="2", extra=", 'write-only' = 'true'"))
    spark.sql("INSERT INTO paimon.default.both VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)")
    before = files(spark, "both")
    statements = ["UPDATE paimon.default.both SET v = 'first' WHERE id = 1",
                  "DELETE FROM paimon.default.both WHERE id = 3"]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(spark.sql, statements))
    assert rows(spark.sql("SELECT * FROM paimon.default.both")) == [(1, "first", 1), (2, "b", 1)]
    # No file was rewritten: each statement added one file holding the one key it changed.
    assert before < files(spark, "both")
    assert rows(spark.sql("SELECT commit_kind, delta_record_count FROM paimon.default.`both$snapshots` "
                          "WHERE snapshot_id > 1")) == [("APPEND", 1), ("APPEND", 1)]


@pytest.mark.parametrize("kind", ["append", "pk"])
def test_row_level_statements_after_schema_changes(spark, oracle, kind):
    """An UPDATE after a rename, a MERGE after ADD COLUMN, a DELETE on a widened column."""
    name = f"evolved_dml_{kind}"
    t = f"paimon.default.{name}"
    keyed = "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')" if kind == "pk" else ""
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING, n INT) {keyed}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO label")
    spark.sql(f"UPDATE {t} SET label = upper(label) WHERE id = 1")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.createDataFrame([(2, "b", 20, "merged"), (4, "d", 40, "new")], "id INT, label STRING, n INT, note STRING") \
        .createOrReplaceTempView(f"src_{kind}")
    spark.sql(f"MERGE INTO {t} t USING src_{kind} s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET note = s.note WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN n TYPE BIGINT")
    spark.sql(f"DELETE FROM {t} WHERE n = 30")
    expected = [(1, "A", 10, None), (2, "b", 20, "merged"), (4, "d", 40, "new")]
    assert rows(spark.table(t)) == expected
    assert oracle_rows(oracle, name, ["id", "label", "n", "note"]) == expected


@pytest.mark.parametrize("kind", ["append", "pk"])
def test_partition_ddl_lists_drops_and_truncates_by_metadata(spark, warehouse, oracle, kind):
    name = f"ddl_{kind}"
    keys = ", 'primary-key' = 'id, dt, hh', 'bucket' = '1'" if kind == "pk" else ""
    # A null partition value on the append table; key columns, partition columns included, are NOT NULL.
    last = "'d4'" if kind == "pk" else "NULL"
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING, dt STRING, hh INT) PARTITIONED BY (dt, hh) "
              f"TBLPROPERTIES ('file.format' = 'parquet' {keys})")
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a', 'd1', 1), (2, 'b', 'd1', 2), (3, 'c', 'd2', 1), "
              f"(4, 'd', 'd2', 2), (5, 'e', 'd3', 1), (6, 'f', {last}, 1)")
    t = f"paimon.default.{name}"

    def partitions(spec=""):
        return [r[0] for r in spark.sql(f"SHOW PARTITIONS {t} {spec}").collect()]

    assert partitions() == ["dt=d1/hh=1", "dt=d1/hh=2", "dt=d2/hh=1", "dt=d2/hh=2", "dt=d3/hh=1",
                            f"dt={last.strip(chr(39)).lower()}/hh=1"]
    assert partitions("PARTITION (hh = 2)") == ["dt=d1/hh=2", "dt=d2/hh=2"]
    before = files(spark, name)
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt = 'd1', hh = 2), PARTITION (dt = {last}, hh = 1)")
    spark.sql(f"TRUNCATE TABLE {t} PARTITION (dt = 'd2', hh = 1)")
    spark.sql(f"TRUNCATE TABLE {t} PARTITION (dt = 'd3')")  # a partial spec truncates every partition under it
    # Each statement is one OVERWRITE commit that only removes files: none is written.
    assert commit_kinds(warehouse, name)[-3:] == ["OVERWRITE"] * 3
    assert files(spark, name) < before
    expected = [(1, "a", "d1", 1), (4, "d", "d2", 2)]
    assert rows(spark.table(t)) == expected
    assert oracle_rows(oracle, name, ["id", "v", "dt", "hh"]) == expected
    assert partitions() == ["dt=d1/hh=1", "dt=d2/hh=2"]
    # A partition's statistics under Paimon's names.
    [info] = spark.sql(f"SHOW TABLE EXTENDED IN paimon.default LIKE '{name}' PARTITION (dt = 'd1', hh = 1)").collect()
    assert "recordCount: 1, fileSizeInBytes: " in info.information and "fileCount: 1" in info.information
    # Spark's own errors for partitions that are not there or already are; nothing committed.
    kinds = commit_kinds(warehouse, name)
    with pytest.raises(AnalysisException, match="PARTITIONS_NOT_FOUND"):
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt = 'd9', hh = 1)")
    spark.sql(f"ALTER TABLE {t} DROP IF EXISTS PARTITION (dt = 'd9', hh = 1)")
    with pytest.raises(AnalysisException, match="PARTITIONS_ALREADY_EXIST"):
        spark.sql(f"ALTER TABLE {t} ADD PARTITION (dt = 'd1', hh = 1)")
    # ADD PARTITION records nothing in a filesystem catalog, as in Paimon: a partition is its files.
    spark.sql(f"ALTER TABLE {t} ADD PARTITION (dt = 'd7', hh = 7)")
    assert partitions() == ["dt=d1/hh=1", "dt=d2/hh=2"]
    assert commit_kinds(warehouse, name) == kinds
    # Time travel still sees the dropped partitions; the read-only view cannot drop any.
    assert spark.sql(f"SELECT count(*) FROM {t} VERSION AS OF 1").first()[0] == 6
    with pytest.raises(UnsupportedFeatureError, match="read-only view"):
        spark.sql(f"ALTER TABLE paimon.default.`{name}$ro` DROP PARTITION (dt = 'd1', hh = 1)")
    assert commit_kinds(warehouse, name) == kinds


def test_copy_on_write_replaces_only_files_where_a_row_changes(spark, warehouse, oracle):
    """Conditions statistics cannot narrow (a function, a subquery, a MERGE join): Spark's run-time group filter
    finds the files holding a changed row through `__paimon_file_path`, and only those are rewritten."""
    t = "paimon.default.grouped"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('write-only' = 'true')")
    for b in range(4):  # four files: ids b*10 .. b*10+4, one write task each
        spark.range(b * 10, b * 10 + 5, 1, 1).selectExpr("CAST(id AS INT) id", "concat('v', id) v").writeTo(t).append()
    by_file = spark.sql(f"SELECT __paimon_file_path, min(id) FROM {t} GROUP BY 1").collect()
    assert len(by_file) == 4 and {r[0] for r in by_file} == files(spark, "grouped")

    def replaced(statement):
        before = files(spark, "grouped")
        spark.sql(statement)
        after = files(spark, "grouped")
        return len(before - after), len(after - before)

    assert replaced(f"DELETE FROM {t} WHERE upper(v) = 'V12'") == (1, 1)
    spark.createDataFrame([(21, "x"), (99, "new")], "id INT, v STRING").createOrReplaceTempView("grouped_src")
    assert replaced(f"MERGE INTO {t} t USING grouped_src s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *") == (1, 1)
    # (The rewritten rows may come out of the join in more than one task, so in more than one file.)
    assert replaced(f"UPDATE {t} SET v = 'u' WHERE id IN (SELECT id + 10 FROM grouped_src)")[0] == 1
    # Nothing matched: the insert alone is written, no file replaced.
    spark.createDataFrame([(100, "only")], "id INT, v STRING").createOrReplaceTempView("grouped_new")
    assert replaced(f"MERGE INTO {t} t USING grouped_new s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *") == (0, 1)
    expected = sorted([(i, f"v{i}") for b in range(4) for i in range(b * 10, b * 10 + 5) if i not in (12, 21)] +
                      [(21, "x"), (99, "new"), (100, "only")])
    expected = [(i, "u" if i == 31 else v) for i, v in expected]  # 21 + 10; 99 + 10 is no row
    assert rows(spark.table(t)) == expected
    assert oracle_rows(oracle, "grouped", ["id", "v"]) == expected


def test_delete_force_produce_changelog_deletes_whole_partitions_row_by_row(spark, warehouse):
    spark.sql(PK_TABLE.format(name="forced", bucket="1", extra=", 'changelog-producer' = 'input', "
                              "'delete.force-produce-changelog' = 'true'"))
    spark.sql("INSERT INTO paimon.default.forced VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 2)")
    spark.sql("DELETE FROM paimon.default.forced WHERE p = 2")
    assert commit_kinds(warehouse, "forced")[-1] == "APPEND"
    changes = spark.read.option("incremental-between", "1,2").table("paimon.default.`forced$audit_log`")
    assert rows(changes.select("rowkind", "id")) == [("-D", 2), ("-D", 3)]
    assert rows(spark.sql("SELECT id FROM paimon.default.forced")) == [(1,)]
