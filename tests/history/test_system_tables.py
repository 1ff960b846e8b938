"""System tables (`t$snapshots`, `$schemas`, `$options`, `$tags`, `$branches`, `$consumers`, `$files`,
`$file_key_ranges`, `$manifests`, `$partitions`, `$buckets`, `$statistics`, `$table_indexes`, `$aggregation_fields`,
`$ro`) and the catalog's database `sys`: Paimon's columns, rows that match the metadata files, and pypaimon's system
tables where it has them."""

from __future__ import annotations

import datetime as dt
import json
import os
from zoneinfo import ZoneInfo

import pytest

from conftest import rows, table_dir
from history_util import data_files, oracle_system_rows, snapshot_ids, snapshot_json, utc
from paimon_spark import InvalidIdentifierError, PaimonError
from pyspark.errors import AnalysisException
from pyspark.sql.types import (ArrayType, BooleanType, IntegerType, LongType, StringType, StructField, StructType)

pytestmark = pytest.mark.usefixtures("utc")

SNAPSHOT_COLUMNS = ["snapshot_id", "schema_id", "commit_user", "commit_identifier", "commit_kind", "commit_time",
                    "base_manifest_list", "delta_manifest_list", "changelog_manifest_list", "total_record_count",
                    "delta_record_count", "changelog_record_count", "watermark", "next_row_id"]


def utc_time(millis):
    return dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=millis)


def sys_rows(spark, table, where=""):
    return [r.asDict() for r in spark.sql(f"SELECT * FROM paimon.default.`{table}` {where}").collect()]


@pytest.fixture(scope="module")
def st(spark, warehouse):
    """A partitioned primary-key table with four snapshots (one a compaction), two schemas, tags and a branch."""
    spark.sql("CREATE TABLE paimon.default.st (id INT, v STRING, p STRING) PARTITIONED BY (p) COMMENT 'sys' "
              "TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.st VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')")
    spark.sql("INSERT INTO paimon.default.st VALUES (1, 'a2', 'x'), (4, 'd', 'y')")
    spark.sql("ALTER TABLE paimon.default.st SET TBLPROPERTIES ('target-file-size' = '32 mb')")
    spark.sql("CALL paimon.sys.compact(table => 'default.st')")
    spark.sql("INSERT INTO paimon.default.st VALUES (5, 'e', 'z')")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.st', tag => 'two', snapshot => 2)")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.st', tag => 'ttl', time_retained => '1 d')")
    spark.sql("CALL paimon.sys.create_branch(table => 'default.st', branch => 'side')")
    assert snapshot_ids(warehouse, "st") == [1, 2, 3, 4]
    assert [snapshot_json(warehouse, "st", i)["commitKind"] for i in (1, 2, 3, 4)] == [
        "APPEND", "APPEND", "COMPACT", "APPEND"]
    return table_dir(warehouse, "st")


def test_snapshots_table_is_the_snapshot_files(spark, oracle, warehouse, st):
    df = spark.table("paimon.default.`st$snapshots`")
    assert df.columns == SNAPSHOT_COLUMNS
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types["snapshot_id"] == "bigint" and types["commit_time"] == "timestamp_ntz"
    assert not df.schema["snapshot_id"].nullable and df.schema["watermark"].nullable
    ours = sys_rows(spark, "st$snapshots")
    assert [r["snapshot_id"] for r in ours] == [1, 2, 3, 4]
    for r in ours:
        s = snapshot_json(warehouse, "st", r["snapshot_id"])
        assert r == {
            "snapshot_id": s["id"], "schema_id": s["schemaId"], "commit_user": s["commitUser"],
            "commit_identifier": s["commitIdentifier"], "commit_kind": s["commitKind"],
            "commit_time": utc_time(s["timeMillis"]), "base_manifest_list": s["baseManifestList"],
            "delta_manifest_list": s["deltaManifestList"], "changelog_manifest_list": s.get("changelogManifestList"),
            "total_record_count": s["totalRecordCount"], "delta_record_count": s["deltaRecordCount"],
            "changelog_record_count": s.get("changelogRecordCount"), "watermark": s.get("watermark"),
            "next_row_id": s.get("nextRowId"),
        }
    # Snapshot 3 was committed under the altered schema.
    assert [r["schema_id"] for r in ours] == [0, 0, 1, 1]
    theirs = sorted(oracle_system_rows(oracle, "st$snapshots"), key=lambda r: r["snapshot_id"])
    assert [{k: r[k] for k in SNAPSHOT_COLUMNS} for r in theirs] == ours


def test_snapshots_table_filters(spark, st):
    def ids(where):
        return [r["snapshot_id"] for r in sys_rows(spark, "st$snapshots", where)]

    assert ids("WHERE snapshot_id = 2") == [2]
    assert ids("WHERE snapshot_id IN (1, 3, 99)") == [1, 3]
    assert ids("WHERE snapshot_id > 2") == [3, 4]
    assert ids("WHERE snapshot_id = 99") == []
    assert ids("WHERE commit_kind = 'COMPACT'") == [3]
    assert ids("WHERE snapshot_id = 3 AND commit_kind = 'APPEND'") == []
    assert ids("WHERE snapshot_id = 2 OR commit_kind = 'COMPACT'") == [2, 3]
    assert rows(spark.sql("SELECT count(*), max(total_record_count) FROM paimon.default.`st$snapshots`")) == [(4, 5)]


def test_commit_time_is_shown_in_the_session_time_zone(spark, warehouse, st):
    millis = snapshot_json(warehouse, "st", 1)["timeMillis"]
    spark.conf.set("spark.sql.session.timeZone", "Asia/Kolkata")
    try:
        got = sys_rows(spark, "st$snapshots", "WHERE snapshot_id = 1")[0]["commit_time"]
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert got == utc_time(millis) + dt.timedelta(hours=5, minutes=30)


def test_schemas_table_is_the_schema_files(spark, oracle, st):
    df = spark.table("paimon.default.`st$schemas`")
    assert df.columns == ["schema_id", "fields", "partition_keys", "primary_keys", "options", "comment", "update_time"]
    ours = sys_rows(spark, "st$schemas")
    assert [r["schema_id"] for r in ours] == [0, 1]
    for r in ours:
        s = json.loads((st / "schema" / f"schema-{r['schema_id']}").read_text())
        assert json.loads(r["fields"]) == s["fields"]
        assert json.loads(r["partition_keys"]) == s["partitionKeys"] == ["p"]
        assert json.loads(r["primary_keys"]) == s["primaryKeys"] == ["p", "id"]
        assert json.loads(r["options"]) == s["options"]
        assert r["comment"] == s["comment"] == "sys"
        assert r["update_time"] == utc_time(s["timeMillis"])
    assert json.loads(ours[1]["options"])["target-file-size"] == "32 mb"
    assert "target-file-size" not in json.loads(ours[0]["options"])
    theirs = sorted(oracle_system_rows(oracle, "st$schemas"), key=lambda r: r["schema_id"])
    assert theirs == ours
    assert [r["schema_id"] for r in sys_rows(spark, "st$schemas", "WHERE schema_id = 1")] == [1]


def test_options_table_is_the_latest_schemas_options(spark, oracle, st):
    assert spark.table("paimon.default.`st$options`").columns == ["key", "value"]
    ours = sorted((r["key"], r["value"]) for r in sys_rows(spark, "st$options"))
    latest = json.loads((st / "schema" / "schema-1").read_text())["options"]
    assert ours == sorted(latest.items())
    assert ("target-file-size", "32 mb") in ours and ("bucket", "2") in ours
    assert sorted((r["key"], r["value"]) for r in oracle_system_rows(oracle, "st$options")) == ours


def test_tags_and_branches_tables(spark, oracle, st):
    tags = spark.table("paimon.default.`st$tags`")
    assert tags.columns == ["tag_name", "snapshot_id", "schema_id", "commit_time", "record_count", "create_time",
                            "time_retained"]
    ours = {r["tag_name"]: r for r in sys_rows(spark, "st$tags")}
    assert {n: (r["snapshot_id"], r["schema_id"], r["time_retained"]) for n, r in ours.items()} == {
        "two": (2, 0, None), "ttl": (4, 1, "PT24H")}
    theirs = {r["tag_name"]: r for r in oracle_system_rows(oracle, "st$tags")}
    assert {n: (r["snapshot_id"], r["schema_id"], r["commit_time"], r["record_count"]) for n, r in theirs.items()} == \
        {n: (r["snapshot_id"], r["schema_id"], r["commit_time"], r["record_count"]) for n, r in ours.items()}
    branches = spark.table("paimon.default.`st$branches`")
    assert branches.columns == ["branch_name", "create_time"]
    ours = sys_rows(spark, "st$branches")
    assert [r["branch_name"] for r in ours] == ["side"]
    mtime = os.stat(st / "branch" / "branch-side").st_mtime
    assert abs((ours[0]["create_time"] - dt.datetime(1970, 1, 1)).total_seconds() - mtime) < 1
    assert [r["branch_name"] for r in oracle_system_rows(oracle, "st$branches")] == ["side"]


def test_consumers_table(spark, oracle, st):
    assert sys_rows(spark, "st$consumers") == []
    consumer = st / "consumer"
    consumer.mkdir(exist_ok=True)
    (consumer / "consumer-x").write_text(json.dumps({"nextSnapshot": 2}))
    (consumer / "consumer-flink_job").write_text(json.dumps({"nextSnapshot": 4}))
    try:
        assert spark.table("paimon.default.`st$consumers`").columns == ["consumer_id", "next_snapshot_id"]
        ours = sorted((r["consumer_id"], r["next_snapshot_id"]) for r in sys_rows(spark, "st$consumers"))
        assert ours == [("flink_job", 4), ("x", 2)]
        assert sorted((r["consumer_id"], r["next_snapshot_id"])
                      for r in oracle_system_rows(oracle, "st$consumers")) == ours
    finally:
        for f in consumer.iterdir():
            f.unlink()
        consumer.rmdir()


def test_system_tables_of_a_branch(spark, warehouse, st):
    spark.sql("INSERT INTO paimon.default.`st$branch_side` VALUES (9, 'i', 'x')")
    assert [r["snapshot_id"] for r in sys_rows(spark, "st$branch_side$snapshots")] == [1]
    assert sys_rows(spark, "st$branch_side$snapshots")[0]["commit_user"] == \
        snapshot_json(warehouse, "st", 1, "side")["commitUser"]
    assert [r["schema_id"] for r in sys_rows(spark, "st$branch_side$schemas")] == [0, 1]
    assert sys_rows(spark, "st$branch_side$tags") == []
    # Main's are unchanged.
    assert [r["snapshot_id"] for r in sys_rows(spark, "st$snapshots")] == [1, 2, 3, 4]


def basename(path):
    return path.rsplit("/", 1)[-1]


FILE_KEYS = ["bucket", "schema_id", "level", "record_count", "file_size_in_bytes", "min_sequence_number",
             "max_sequence_number"]


def test_files_table_lists_the_live_files(spark, oracle, st):
    df = spark.table("paimon.default.`st$files`")
    assert df.columns == ["partition", "bucket", "file_path", "file_format", "schema_id", "level", "record_count",
                          "file_size_in_bytes", "min_key", "max_key", "null_value_counts", "min_value_stats",
                          "max_value_stats", "min_sequence_number", "max_sequence_number", "creation_time",
                          "deleteRowCount", "file_source", "first_row_id", "write_cols"]
    ours = sys_rows(spark, "st$files")
    # The compaction left one file per written bucket at the top level; snapshot 4 added one at level 0.
    names = {basename(r["file_path"]) for r in ours}
    on_disk = {basename(f) for f in data_files(st)}
    assert names < on_disk and len(names) == len(ours)
    assert all(os.path.exists(r["file_path"].removeprefix("file:")) for r in ours)
    assert sorted(r["level"] for r in ours).count(0) == 1
    assert {r["partition"] for r in ours} == {"{x}", "{y}", "{z}"}
    assert all(r["file_format"] == "parquet" for r in ours)
    # Two keys of x and two of y compacted into the top level, and z's row at level 0.
    assert sum(r["record_count"] for r in ours) == 5
    by_name = {basename(r["file_path"]): r for r in ours}
    theirs = oracle_system_rows(oracle, "st$files")
    assert {basename(r["file_path"]) for r in theirs} == names
    for r in theirs:
        mine = by_name[basename(r["file_path"])]
        assert {k: mine[k] for k in FILE_KEYS} == {k: r[k] for k in FILE_KEYS}
        assert (mine["min_key"], mine["max_key"]) == (r["min_key"], r["max_key"]) or r["min_key"] is None
        assert mine["partition"] == "{" + r["partition"].split("=", 1)[1] + "}"
    # Keys print as [id]: the primary key without the partition columns, as files store it.
    z = [r for r in ours if r["partition"] == "{z}"][0]
    assert (z["min_key"], z["max_key"]) == ("[5]", "[5]")
    # Filters on partition and bucket narrow what is listed.
    assert {basename(r["file_path"]) for r in sys_rows(spark, "st$files", "WHERE partition = '{z}'")} == \
        {basename(z["file_path"])}
    assert all(r["bucket"] == 0 for r in sys_rows(spark, "st$files", "WHERE bucket = 0"))


def test_files_table_prints_time_stats_in_the_session_zone(spark):
    spark.sql("CREATE TABLE paimon.default.timed (id INT, ts TIMESTAMP, ntz TIMESTAMP_NTZ, d DATE)")
    spark.sql("INSERT INTO paimon.default.timed VALUES (1, TIMESTAMP'2024-05-01 10:00:00', "
              "TIMESTAMP_NTZ'2024-05-01 10:00:00', DATE'2024-05-01')")
    [stats] = spark.sql("SELECT min_value_stats FROM paimon.default.`timed$files`").collect()
    # The module runs in UTC: a TIMESTAMP (local time zone) prints as Spark shows it.
    assert stats[0] == "{d=2024-05-01, id=1, ntz=2024-05-01 10:00:00, ts=2024-05-01 10:00:00}"


def test_files_table_at_a_past_snapshot(spark, st):
    # At snapshot 2, before the compaction, all five rows are in level-0 files of two commits.
    past = [r.asDict() for r in spark.sql("SELECT * FROM paimon.default.`st$files` VERSION AS OF 2").collect()]
    assert past and all(r["level"] == 0 for r in past)
    assert sum(r["record_count"] for r in past) == 5
    assert {r["partition"] for r in past} == {"{x}", "{y}"}
    by_tag = [r.asDict() for r in spark.sql("SELECT * FROM paimon.default.`st$files` VERSION AS OF 'two'").collect()]
    assert sorted(r["file_path"] for r in by_tag) == sorted(r["file_path"] for r in past)


def test_manifests_table_matches_pypaimon(spark, oracle, st):
    df = spark.table("paimon.default.`st$manifests`")
    assert df.columns == ["file_name", "file_size", "num_added_files", "num_deleted_files", "schema_id",
                          "min_partition_stats", "max_partition_stats", "min_row_id", "max_row_id"]
    ours = sorted(sys_rows(spark, "st$manifests"), key=lambda r: r["file_name"])
    assert all((st / "manifest" / r["file_name"]).stat().st_size == r["file_size"] for r in ours)
    theirs = sorted(oracle_system_rows(oracle, "st$manifests"), key=lambda r: r["file_name"])
    assert theirs == ours
    # Live files are the adds less the deletes over all data manifests of the latest snapshot.
    files = sys_rows(spark, "st$files")
    assert sum(r["num_added_files"] - r["num_deleted_files"] for r in ours) == len(files)


def test_partitions_and_buckets_tables_match_pypaimon(spark, oracle, st):
    partitions = spark.table("paimon.default.`st$partitions`")
    assert partitions.columns == ["partition", "record_count", "file_size_in_bytes", "file_count",
                                  "last_update_time", "created_at", "created_by", "updated_by", "options"]
    ours = sorted(sys_rows(spark, "st$partitions"), key=lambda r: r["partition"])
    # As Paimon's PartitionsTable writes it: k=v, joined by '/'.
    assert [r["partition"] for r in ours] == ["p=x", "p=y", "p=z"]
    files = sys_rows(spark, "st$files")
    for r in ours:
        mine = [f for f in files if f["partition"] == "{" + r["partition"][2:] + "}"]
        assert r["file_count"] == len(mine)
        assert r["record_count"] == sum(f["record_count"] for f in mine)
        assert r["file_size_in_bytes"] == sum(f["file_size_in_bytes"] for f in mine)
    keys = ["partition", "record_count", "file_size_in_bytes", "file_count", "last_update_time"]
    theirs = sorted(oracle_system_rows(oracle, "st$partitions"), key=lambda r: r["partition"])
    assert [{k: r[k] for k in keys} for r in theirs] == [{k: r[k] for k in keys} for r in ours]

    buckets = spark.table("paimon.default.`st$buckets`")
    assert buckets.columns == ["partition", "bucket", "record_count", "file_size_in_bytes", "file_count",
                               "last_update_time"]
    ours = sorted(sys_rows(spark, "st$buckets"), key=lambda r: (r["partition"], r["bucket"]))
    for r in ours:
        mine = [f for f in files if (f["partition"], f["bucket"]) == (r["partition"], r["bucket"])]
        assert (r["file_count"], r["record_count"]) == (len(mine), sum(f["record_count"] for f in mine))
    keys = ["bucket", "record_count", "file_size_in_bytes", "file_count"]
    theirs = sorted(oracle_system_rows(oracle, "st$buckets"), key=lambda r: (r["partition"], r["bucket"]))
    # pypaimon prints the partition as p=x where Paimon (and we) print the row, {x}.
    assert [("{" + r["partition"][2:] + "}", *(r[k] for k in keys)) for r in theirs] == \
        [(r["partition"], *(r[k] for k in keys)) for r in ours]


def test_statistics_table_is_empty_without_statistics(spark, st):
    df = spark.table("paimon.default.`st$statistics`")
    assert df.columns == ["snapshot_id", "schema_id", "mergedRecordCount", "mergedRecordSize", "colstat"]
    assert df.collect() == []


def test_read_optimized_table_reads_only_the_top_level(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.st_ro (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.st_ro VALUES (1, 'a'), (2, 'b')")
    assert rows(spark.table("paimon.default.`st_ro$ro`")) == []
    spark.sql("CALL paimon.sys.compact(table => 'default.st_ro')")
    assert rows(spark.table("paimon.default.`st_ro$ro`")) == [(1, "a"), (2, "b")]
    spark.sql("INSERT INTO paimon.default.st_ro VALUES (1, 'a2'), (3, 'c')")
    assert rows(spark.table("paimon.default.st_ro")) == [(1, "a2"), (2, "b"), (3, "c")]
    assert rows(spark.table("paimon.default.`st_ro$ro`")) == [(1, "a"), (2, "b")]
    assert rows(spark.sql("SELECT v FROM paimon.default.`st_ro$ro` WHERE id = 2")) == [("b",)]
    with pytest.raises(Exception, match="(?i)read.only|not support|cannot be written|UNSUPPORTED"):
        spark.sql("INSERT INTO paimon.default.`st_ro$ro` VALUES (4, 'd')")
    # An append table's $ro is the table.
    spark.sql("CREATE TABLE paimon.default.st_ro_append (id INT)")
    spark.sql("INSERT INTO paimon.default.st_ro_append VALUES (1), (2)")
    assert rows(spark.table("paimon.default.`st_ro_append$ro`")) == [(1,), (2,)]


def test_bad_system_table_names(spark, warehouse, st):
    with pytest.raises(InvalidIdentifierError, match="'nope'.*snapshots") as e:
        spark.table("paimon.default.`st$nope`").collect()
    assert "tags" in str(e.value)
    # A missing table is missing as Spark reports any missing table.
    with pytest.raises(AnalysisException, match="missing") as plain:
        spark.table("paimon.default.missing").collect()
    with pytest.raises(type(plain.value), match=r"missing\$snapshots"):
        spark.table("paimon.default.`missing$snapshots`").collect()
    with pytest.raises(PaimonError, match="ghost"):
        spark.table("paimon.default.`st$branch_ghost$snapshots`").collect()
    before = snapshot_ids(warehouse, "st")
    with pytest.raises(Exception, match="(?i)snapshots|not support|read.only|UNSUPPORTED"):
        spark.sql("INSERT INTO paimon.default.`st$snapshots` SELECT * FROM paimon.default.`st$snapshots`")
    assert snapshot_ids(warehouse, "st") == before


def test_system_tables_in_the_session_catalog(spark, oracle):
    spark.sql("CREATE TABLE st_session (id INT) USING paimon")
    spark.sql("INSERT INTO st_session VALUES (1)")
    spark.sql("CALL spark_catalog.sys.create_tag(table => 'default.st_session', tag => 'one')")
    spark.sql("INSERT INTO st_session VALUES (2)")
    assert [r[0] for r in spark.sql("SELECT snapshot_id FROM `st_session$snapshots`").collect()] == [1, 2]
    assert [r[0] for r in spark.sql("SELECT tag_name FROM spark_catalog.default.`st_session$tags`").collect()] == \
        ["one"]
    assert sorted(r["snapshot_id"] for r in oracle_system_rows(oracle, "st_session$snapshots")) == [1, 2]
    spark.sql("DROP TABLE st_session")


def struct(*fields):
    """A StructType of (name, type) or (name, type, nullable) triples."""
    return StructType([StructField(f[0], f[1], f[2] if len(f) > 2 else True) for f in fields])


def test_file_key_ranges_table_is_files_without_stats(spark, oracle, st):
    df = spark.table("paimon.default.`st$file_key_ranges`")
    assert df.schema == struct(
        ("partition", StringType()), ("bucket", IntegerType(), False), ("file_path", StringType(), False),
        ("file_format", StringType(), False), ("schema_id", LongType(), False), ("level", IntegerType(), False),
        ("record_count", LongType(), False), ("file_size_in_bytes", LongType(), False), ("min_key", StringType()),
        ("max_key", StringType()), ("first_row_id", LongType()))
    ours = sys_rows(spark, "st$file_key_ranges")
    files = sys_rows(spark, "st$files")
    assert sorted(ours, key=lambda r: r["file_path"]) == \
        sorted(({c: r[c] for c in df.columns} for r in files), key=lambda r: r["file_path"])
    keys = ["bucket", "schema_id", "level", "record_count", "file_size_in_bytes", "min_key", "max_key", "first_row_id"]
    theirs = oracle_system_rows(oracle, "st$file_key_ranges")
    assert sorted((basename(r["file_path"]), *(r[k] for k in keys)) for r in theirs) == \
        sorted((basename(r["file_path"]), *(r[k] for k in keys)) for r in ours)
    assert {r["file_path"] for r in sys_rows(spark, "st$file_key_ranges", "WHERE partition = '{z}'")} == \
        {r["file_path"] for r in ours if r["partition"] == "{z}"}


DV_RANGE = StructType([StructField("f0", StringType(), False), StructField("f1", IntegerType(), False),
                       StructField("f2", IntegerType(), False), StructField("_CARDINALITY", LongType())])


def test_table_indexes_table_has_paimon_1_4_columns(spark, oracle):
    spark.sql("CREATE TABLE paimon.default.st_dv (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES "
              "('primary-key' = 'p,id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true')")
    spark.sql("INSERT INTO paimon.default.st_dv VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
    spark.sql("INSERT INTO paimon.default.st_dv VALUES (1, 'a2', 'x')")
    df = spark.table("paimon.default.`st_dv$table_indexes`")
    assert df.schema == struct(
        ("partition", StringType()), ("bucket", IntegerType(), False), ("index_type", StringType(), False),
        ("file_name", StringType(), False), ("file_size", LongType(), False), ("row_count", LongType(), False),
        ("dv_ranges", ArrayType(DV_RANGE)))
    ours = sys_rows(spark, "st_dv$table_indexes")
    # One vector, in x's bucket, marking the replaced row of the first insert.
    [index] = ours
    assert (index["partition"], index["bucket"], index["index_type"]) == ("{x}", 0, "DELETION_VECTORS")
    [vector] = index["dv_ranges"]
    assert vector["_CARDINALITY"] == 1
    assert vector["f0"] in {basename(r["file_path"]) for r in sys_rows(spark, "st_dv$files")}
    keys = ["bucket", "index_type", "file_name", "file_size", "row_count"]
    theirs = oracle_system_rows(oracle, "st_dv$table_indexes")
    assert [({k: r[k] for k in keys}, [tuple(v.values()) for v in r["dv_ranges"]]) for r in theirs] == \
        [({k: r[k] for k in keys}, [tuple(v) for v in r["dv_ranges"]]) for r in ours]
    # Nested fields alone, which Spark asks the scan to prune to (the scan keeps whole columns).
    assert spark.sql("SELECT dv_ranges[0]._CARDINALITY AS n, bucket FROM paimon.default.`st_dv$table_indexes`") \
        .collect() == [(1, 0)]
    assert spark.sql("SELECT sum(r._CARDINALITY) FROM paimon.default.`st_dv$table_indexes` "
                     "LATERAL VIEW explode(dv_ranges) AS r").first()[0] == 1


def test_aggregation_fields_table_lists_each_columns_options(spark):
    spark.sql("CREATE TABLE paimon.default.st_agg (id INT COMMENT 'the key', n BIGINT, s VARCHAR(8), "
              "r STRUCT<`a b`: INT NOT NULL COMMENT 'it''s', c: ARRAY<DECIMAL(10, 2)>>) TBLPROPERTIES ("
              "'primary-key' = 'id', 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
              "'fields.s.aggregate-function' = 'last_non_null_value', 'fields.default-aggregate-function' = 'max')")
    df = spark.table("paimon.default.`st_agg$aggregation_fields`")
    assert df.schema == struct(("field_name", StringType(), False), ("field_type", StringType(), False),
                               ("function", StringType()), ("function_options", StringType()), ("comment", StringType()))
    # As Paimon prints them: types in its SQL spelling, each column's `fields.<column>.*` options as Java lists.
    assert sys_rows(spark, "st_agg$aggregation_fields") == [
        {"field_name": "id", "field_type": "INT NOT NULL", "function": "[]", "function_options": "[]",
         "comment": "the key"},
        {"field_name": "n", "field_type": "BIGINT", "function": "[sum]",
         "function_options": "[fields.n.aggregate-function]", "comment": None},
        {"field_name": "s", "field_type": "VARCHAR(8)", "function": "[last_non_null_value]",
         "function_options": "[fields.s.aggregate-function]", "comment": None},
        {"field_name": "r", "field_type": "ROW<`a b` INT NOT NULL COMMENT 'it''s', `c` ARRAY<DECIMAL(10, 2)>>",
         "function": "[]", "function_options": "[]", "comment": None},
    ]


ALL_TABLES = struct(
    ("database_name", StringType()), ("table_name", StringType()), ("table_type", StringType()),
    ("partitioned", BooleanType()), ("primary_key", BooleanType()), ("owner", StringType()),
    ("created_at", LongType()), ("created_by", StringType()), ("updated_at", LongType()), ("updated_by", StringType()),
    ("record_count", LongType()), ("file_size_in_bytes", LongType()), ("file_count", LongType()),
    ("last_file_creation_time", LongType()))
ALL_PARTITIONS = struct(
    ("database_name", StringType()), ("table_name", StringType()), ("partition_name", StringType()),
    ("record_count", LongType()), ("file_size_in_bytes", LongType()), ("file_count", LongType()),
    ("last_file_creation_time", LongType()), ("done", BooleanType()))


def test_catalog_system_database(spark, warehouse, st):
    assert spark.table("paimon.sys.tables").schema == ALL_TABLES
    assert spark.table("paimon.sys.partitions").schema == ALL_PARTITIONS
    assert spark.table("paimon.sys.all_table_options").schema == struct(
        ("database_name", StringType()), ("table_name", StringType()), ("key", StringType()), ("value", StringType()))
    assert spark.table("paimon.sys.catalog_options").schema == struct(
        ("key", StringType(), False), ("value", StringType(), False))

    # A filesystem catalog has no audit fields nor snapshot statistics for Paimon to show.
    [table] = [r.asDict() for r in spark.sql("SELECT * FROM paimon.sys.tables WHERE table_name = 'st'").collect()]
    assert table == {"database_name": "default", "table_name": "st", "table_type": "table", "partitioned": True,
                     "primary_key": True, **{c: None for c in ALL_TABLES.names[5:]}}
    names = {r[0] for r in spark.sql("SELECT table_name FROM paimon.sys.tables WHERE database_name = 'default'")
             .collect()}
    assert names == {r.tableName for r in spark.sql("SHOW TABLES IN paimon.default").collect()}

    # Partitions as `st$partitions` counts them; the last file's creation time (a wall clock) in epoch millis.
    zone = spark.sparkContext._jvm.java.util.TimeZone.getDefault().getID()
    expected = [("default", "st", r["partition"], r["record_count"], r["file_size_in_bytes"], r["file_count"],
                 int(r["last_update_time"].replace(tzinfo=ZoneInfo(zone)).timestamp() * 1000), False)
                for r in sys_rows(spark, "st$partitions")]
    assert rows(spark.sql("SELECT * FROM paimon.sys.partitions WHERE table_name = 'st'")) == sorted(expected)

    # The catalog's options as configured (configure_spark_with_paimon gives the warehouse as a file: URI).
    prefix = "spark.sql.catalog.paimon."
    catalog_options = {k[len(prefix):]: v for k, v in spark.sparkContext.getConf().getAll() if k.startswith(prefix)}
    assert rows(spark.table("paimon.sys.catalog_options")) == sorted(catalog_options.items())
    assert catalog_options["warehouse"] == warehouse.as_uri()

    # The latest schema's options, and the table's location, which Paimon's catalog adds as `path` (its
    # Path prints file:///x as file:/x).
    options = rows(spark.sql("SELECT key, value FROM paimon.sys.all_table_options "
                             "WHERE database_name = 'default' AND table_name = 'st'"))
    assert options == sorted([(r["key"], r["value"]) for r in sys_rows(spark, "st$options")] +
                             [("path", f"file:{table_dir(warehouse, 'st')}")])


def test_catalog_system_database_names(spark):
    assert [r.tableName for r in spark.sql("SHOW TABLES IN paimon.sys").collect()] == [
        "tables", "partitions", "all_table_options", "catalog_options"]
    # Paimon's SparkCatalog lists the databases its catalog stores, which `sys` is not among.
    assert "sys" not in {r[0] for r in spark.sql("SHOW DATABASES IN paimon").collect()}
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table("paimon.sys.nope").collect()
    with pytest.raises(InvalidIdentifierError, match="sys"):
        spark.sql("CREATE TABLE paimon.sys.t (id INT)")
    with pytest.raises(InvalidIdentifierError, match="sys"):
        spark.sql("DROP DATABASE paimon.sys")
    with pytest.raises(PaimonError, match="AS OF"):
        spark.sql("SELECT * FROM paimon.sys.tables VERSION AS OF 1").collect()
    # The session catalog reaches them too.
    assert spark.sql("SELECT count(*) FROM spark_catalog.sys.catalog_options").head()[0] > 0
