"""The file-level system tables ($files, $manifests, $partitions, $buckets, $statistics, $ro) and
automatic tags, checked against the table's files and against pypaimon's system tables."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import rows, table_dir


def system_rows(oracle, name: str, columns: list[str]) -> list[tuple]:
    """pypaimon's reading of one of its system tables, as sorted tuples of some columns."""
    table = oracle.get_table(name)
    builder = table.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    return sorted(tuple(r[c] for c in columns) for r in data)


@pytest.fixture(scope="module")
def orders(spark):
    """A partitioned primary-key table with three commits, the last compacted."""
    spark.sql("CREATE TABLE paimon.default.orders (id INT, v STRING, p STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.orders VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
    spark.sql("INSERT INTO paimon.default.orders VALUES (1, 'a2', 'x'), (4, 'd', 'y')")
    return "paimon.default.orders"


def test_files_lists_the_live_files_pypaimon_lists(spark, oracle, orders, warehouse):
    ours = rows(spark.sql(f"SELECT file_path, bucket, level, record_count, file_size_in_bytes FROM `paimon`.default.`orders$files`"))
    on_disk = sorted(str(p) for p in table_dir(warehouse, "orders").glob("p=*/bucket-*/data-*.parquet"))
    assert sorted(r[0].removeprefix("file:") for r in ours) == on_disk
    assert sum(r[3] for r in ours) == 5  # physical rows of both commits
    # pypaimon shows file names where Java shows paths.
    theirs = system_rows(oracle, "default.orders$files", ["file_path", "bucket", "level", "record_count"])
    assert sorted((r[0].rsplit("/", 1)[1], r[1], r[2], r[3]) for r in ours) == \
        sorted((p.rsplit("/", 1)[-1], b, l, n) for p, b, l, n in theirs)


def test_files_columns_describe_keys_stats_and_partitions(spark, orders):
    row = spark.sql("SELECT * FROM paimon.default.`orders$files` WHERE partition = '{y}' AND min_key = '[3]'").first()
    assert row.partition == "{y}" and row.file_format == "parquet" and row.level == 0
    assert row.max_key == "[3]" and row.min_sequence_number == row.max_sequence_number
    assert row.null_value_counts == "{id=0, p=0, v=0}"
    assert row.min_value_stats == "{id=3, p=y, v=c}" and row.max_value_stats == "{id=3, p=y, v=c}"
    assert row.file_source == "APPEND" and row.creation_time is not None
    assert spark.sql("SELECT count(*) FROM paimon.default.`orders$files` WHERE bucket = 7").first()[0] == 0


def test_partitions_and_buckets_add_up_the_files(spark, oracle, orders):
    parts = rows(spark.sql("SELECT partition, record_count, file_count, file_size_in_bytes FROM paimon.default.`orders$partitions`"))
    files = rows(spark.sql("SELECT partition, count(*), sum(record_count), sum(file_size_in_bytes) "
                           "FROM paimon.default.`orders$files` GROUP BY partition"))
    # $partitions names a partition by its spec (p=x), $files by its row ({x}), as Paimon's do.
    assert [(p, n, c, s) for p, n, c, s in parts] == [("p=" + p[1:-1], n, c, s) for p, c, n, s in files]
    assert [r[1] for r in parts] == [3, 2]
    theirs = system_rows(oracle, "default.orders$partitions", ["partition", "record_count", "file_count",
                                                                "file_size_in_bytes"])
    assert parts == theirs
    buckets = rows(spark.sql("SELECT partition, bucket, record_count FROM paimon.default.`orders$buckets`"))
    assert sum(r[2] for r in buckets) == 5 and {r[0] for r in buckets} == {"{x}", "{y}"}
    assert rows(spark.sql("SELECT partition, record_count FROM paimon.default.`orders$partitions` WHERE partition = 'p=y'")) \
        == [("p=y", 2)]


def test_manifests_are_the_snapshots_data_manifests(spark, oracle, orders):
    ours = rows(spark.sql("SELECT file_name, num_added_files, num_deleted_files, min_partition_stats, max_partition_stats "
                          "FROM paimon.default.`orders$manifests`"))
    assert sum(r[1] for r in ours) == spark.sql("SELECT count(*) FROM paimon.default.`orders$files`").first()[0]
    assert all(r[3] == "{x}" or r[3] == "{y}" for r in ours)
    assert sorted(r[0] for r in ours) == [r[0] for r in system_rows(oracle, "default.orders$manifests", ["file_name"])]


def test_file_tables_travel_in_time(spark, orders):
    assert spark.sql("SELECT sum(record_count) FROM paimon.default.`orders$files` VERSION AS OF 1").first()[0] == 3
    assert spark.sql("SELECT count(*) FROM paimon.default.`orders$manifests` VERSION AS OF 1").first()[0] == 1
    first = spark.read.option("scan.snapshot-id", "1").table("paimon.default.`orders$partitions`")
    assert rows(first.select("partition", "record_count")) == [("p=x", 2), ("p=y", 1)]


def test_read_optimized_reads_only_the_top_level(spark, orders):
    # Before a full compaction nothing is at the top level; afterwards it holds every row, merged.
    assert spark.sql("SELECT count(*) FROM paimon.default.`orders$ro`").first()[0] == 0
    spark.sql("CALL paimon.sys.compact(table => 'default.orders')")
    spark.sql("INSERT INTO paimon.default.orders VALUES (2, 'b2', 'x')")
    assert rows(spark.sql("SELECT * FROM paimon.default.`orders$ro`")) == \
        [(1, "a2", "x"), (2, "b", "x"), (3, "c", "y"), (4, "d", "y")]
    assert (2, "b2", "x") in rows(spark.table(orders))


def test_statistics_shows_the_statistics_file_of_the_snapshot(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.analyzed (id INT) TBLPROPERTIES ('write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.analyzed VALUES (1), (2)")
    assert spark.sql("SELECT * FROM paimon.default.`analyzed$statistics`").count() == 0
    # What Paimon's ANALYZE leaves: a statistics file named by the snapshot.
    root = table_dir(warehouse, "analyzed")
    (root / "statistics").mkdir()
    stats = {"snapshotId": 1, "schemaId": 0, "mergedRecordCount": 2, "mergedRecordSize": 64,
             "colStats": {"id": {"colId": 0, "distinctCount": 2, "min": 1, "max": 2, "nullCount": 0}}}
    (root / "statistics" / "stat-test-0").write_text(json.dumps(stats))
    snapshot = root / "snapshot" / "snapshot-1"
    snapshot.write_text(json.dumps({**json.loads(snapshot.read_text()), "statistics": "stat-test-0"}))
    row = spark.sql("SELECT * FROM paimon.default.`analyzed$statistics`").first()
    assert (row.snapshot_id, row.schema_id, row.mergedRecordCount, row.mergedRecordSize) == (1, 0, 2, 64)
    assert json.loads(row.colstat)["id"]["distinctCount"] == 2


def test_automatic_tags_by_process_time(spark, oracle):
    spark.sql("CREATE TABLE paimon.default.daily (id INT) TBLPROPERTIES ('tag.automatic-creation' = 'process-time', "
              "'tag.creation-period' = 'hourly', 'tag.num-retained-max' = '3', 'tag.default-time-retained' = '1 d')")
    spark.sql("INSERT INTO paimon.default.daily VALUES (1)")
    spark.sql("INSERT INTO paimon.default.daily VALUES (2)")
    # Commit times are local times here, as the tags are named (the JVM's zone is the session's).
    first, second = [r[0] for r in spark.sql(
        "SELECT commit_time FROM paimon.default.`daily$snapshots` ORDER BY snapshot_id").collect()]
    hour = first.replace(minute=0, second=0, microsecond=0)
    # As in Paimon, the first automatic tag comes at once, for the period before the first commit's;
    # the second commit tags the first's hour only if it falls in a later hour.
    expected = [((hour - dt.timedelta(hours=1)).strftime("%Y-%m-%d %H"), 1, "PT24H")]
    if second.replace(minute=0, second=0, microsecond=0) > hour:
        expected.append((hour.strftime("%Y-%m-%d %H"), 2, "PT24H"))
    tags = spark.sql("SELECT tag_name, snapshot_id, time_retained FROM paimon.default.`daily$tags`").collect()
    assert [tuple(t) for t in tags] == expected
    table = oracle.get_table("default.daily").copy({"scan.tag-name": tags[0].tag_name})
    builder = table.new_read_builder()
    assert builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist() == [{"id": 1}]


def test_watermark_tags_wait_for_a_watermark(spark):
    # As in Paimon, tag.automatic-creation = watermark tags by the snapshot's watermark; batch writes
    # carry none, so commits go through and no tag appears (streaming writes will carry one).
    spark.sql("CREATE TABLE paimon.default.by_watermark (id INT) TBLPROPERTIES ("
              "'tag.automatic-creation' = 'watermark', 'tag.creation-period' = 'daily')")
    spark.sql("INSERT INTO paimon.default.by_watermark VALUES (1)")
    spark.sql("INSERT INTO paimon.default.by_watermark VALUES (2)")
    assert spark.sql("SELECT watermark FROM paimon.default.`by_watermark$snapshots`").collect() == [(None,), (None,)]
    assert spark.sql("SELECT * FROM paimon.default.`by_watermark$tags`").count() == 0


def test_batch_automatic_tags_are_refused(spark):
    from paimon_spark import UnsupportedFeatureError

    with pytest.raises(UnsupportedFeatureError, match="tag.automatic-creation"):
        spark.sql("CREATE TABLE paimon.default.batch_tags (id INT) TBLPROPERTIES ('tag.automatic-creation' = 'batch')")
