"""The Python table API: PaimonTable by name and by path, reads and history, writes, maintenance, typed errors."""

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StructField

from conftest import oracle_rows, rows, table_dir
from paimon_spark import PaimonTable, UnsupportedFeatureError, VersionNotFoundError


@pytest.fixture(scope="module")
def orders(spark):
    """A partitioned primary-key table with three snapshots: two writes and a DELETE."""
    spark.sql("CREATE TABLE paimon.default.orders (id INT, status STRING, day STRING) PARTITIONED BY (day) "
              "TBLPROPERTIES ('primary-key' = 'id, day', 'bucket' = '1')")
    t = PaimonTable.for_name(spark, "paimon.default.orders")
    t.upsert(spark.createDataFrame([(1, "new", "d1"), (2, "new", "d1"), (3, "new", "d2")], "id INT, status STRING, day STRING"))
    t.upsert(spark.createDataFrame([(1, "paid", "d1")], "id INT, status STRING, day STRING"))
    t.delete("id = 3")
    return t


def test_names_and_paths_address_the_same_table(spark, warehouse, orders, tmp_path):
    spark.sql("USE paimon.default")
    try:
        by_db = PaimonTable.for_name(spark, "default.orders")
        by_table = PaimonTable.for_name(spark, "orders")
    finally:
        spark.sql("USE spark_catalog.default")
    path = str(table_dir(warehouse, "orders"))
    by_path = PaimonTable.for_path(spark, path)
    expected = [(1, "paid", "d1"), (2, "new", "d1")]
    for t in (orders, by_db, by_table, by_path):
        assert rows(t.to_df()) == expected
        assert t.latest_snapshot_id() == 3
    assert PaimonTable.is_paimon_table(spark, "paimon.default.orders")
    assert PaimonTable.is_paimon_table(spark, path)
    assert not PaimonTable.is_paimon_table(spark, "paimon.default.missing")
    spark.range(3).write.parquet(str(tmp_path / "plain"))
    assert not PaimonTable.is_paimon_table(spark, str(tmp_path / "plain"))
    # Procedures run on a table opened by path too.
    assert by_path.compact() is True
    assert orders.history(limit=1).first().commit_kind == "COMPACT"


def test_reads_travel_and_list_history_and_metadata(spark, orders):
    history = orders.history().collect()
    assert [r.snapshot_id for r in history][:3] == sorted([r.snapshot_id for r in history], reverse=True)[:3]
    assert rows(orders.read(version=1)) == [(1, "new", "d1"), (2, "new", "d1"), (3, "new", "d2")]
    orders.create_tag("first", version=1)
    assert rows(orders.read(tag="first")) == rows(orders.read(version=1))
    assert [r.tag_name for r in orders.tags().collect()] == ["first"]
    moment = history[-1].commit_time  # snapshot 1's commit time, as the session shows it
    assert rows(orders.read(timestamp=moment)) == rows(orders.read(version=1))
    with pytest.raises(VersionNotFoundError, match="99"):
        orders.read(version=99).collect()
    # The changes of snapshots 2 and 3, led by their row kinds.
    assert rows(orders.changes(start_version=1, end_version=3)) == [("+I", 1, "paid", "d1"), ("-D", 3, None, "d2")]
    assert orders.primary_keys() == ["id", "day"] and orders.partition_keys() == ["day"]
    assert orders.schema().fieldNames() == ["id", "status", "day"]
    assert orders.options()["bucket"] == "1"
    assert orders.files().count() >= 1 and orders.partitions().count() == 1
    assert orders.schemas().count() == 1


def test_writes_change_rows_in_one_commit_each(spark, oracle):
    spark.sql("CREATE TABLE paimon.default.events (id INT, kind STRING, p INT) PARTITIONED BY (p)")
    t = PaimonTable.for_name(spark, "paimon.default.events")
    t.append(spark.createDataFrame([(i, "view", i % 2) for i in range(6)], "id INT, kind STRING, p INT"))
    t.overwrite(spark.createDataFrame([(10, "click", 1)], "id INT, kind STRING, p INT"), partition={"p": 1})
    t.delete(F.col("id") == 4)
    t.update("id = 0", {"kind": "'click'"})
    t.update(F.col("id") == 2, {"kind": F.upper(F.col("kind"))})
    expected = [(0, "click", 0), (2, "VIEW", 0), (10, "click", 1)]
    assert rows(t.to_df()) == expected
    assert oracle_rows(oracle, "events") == expected
    assert [r.commit_kind for r in t.history().collect()][::-1][:5] == ["APPEND", "OVERWRITE"] + ["OVERWRITE"] * 3
    with pytest.raises(UnsupportedFeatureError, match="no primary key"):
        t.upsert(t.to_df())


def test_maintenance_calls_change_the_table(spark):
    spark.sql("CREATE TABLE paimon.default.kept (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    t = PaimonTable.for_name(spark, "paimon.default.kept")
    for i in range(4):
        t.upsert(spark.createDataFrame([(i, f"v{i}")], "id INT, v STRING"))
    t.create_tag("two", version=2)
    t.create_branch("side", tag="two")
    assert [r.branch_name for r in t.branches().collect()] == ["side"]
    assert rows(spark.table("paimon.default.`kept$branch_side`")) == [(0, "v0"), (1, "v1")]
    t.rollback_to(version=3)
    assert t.latest_snapshot_id() == 3
    t.rollback_to(tag="two")
    assert rows(t.to_df()) == [(0, "v0"), (1, "v1")]
    t.delete_tag("two")
    assert t.tags().count() == 0
    t.upsert(spark.createDataFrame([(5, "v5")], "id INT, v STRING"))
    assert t.expire_snapshots(retain_max=1, retain_min=1) >= 1
    assert t.history().count() == 1
    assert t.remove_orphan_files(older_than="2000-01-01 00:00:00", dry_run=True) == 0
    t.set_options(**{"snapshot.num-retained.max": 70})
    assert t.options()["snapshot.num-retained.max"] == "70"
    t.unset_options("snapshot.num-retained.max")
    assert "snapshot.num-retained.max" not in t.options()
    t.add_columns("note STRING", StructField("score", DoubleType()))
    t.rename_column("note", "remark")
    t.drop_column("score")
    assert t.schema().fieldNames() == ["id", "v", "remark"]
    assert t.schemas().count() == 6  # created, two option changes, three column changes


@pytest.mark.parametrize("keys", ["", "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"])
def test_merge_builder_runs_every_clause_in_one_commit(spark, oracle, keys):
    name = "merged_pk" if keys else "merged_append"
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, status STRING, n INT) {keys}")
    t = PaimonTable.for_name(spark, f"paimon.default.{name}")
    t.append(spark.createDataFrame([(1, "new", 0), (2, "new", 0), (3, "new", 0), (4, "old", 0)], "id INT, status STRING, n INT"))
    updates = spark.createDataFrame([(1, "paid", 5), (2, "cancelled", 0), (7, "new", 1), (8, "skip", 1)],
                                    "id INT, status STRING, n INT").alias("s")
    before = t.latest_snapshot_id()
    t.merge(updates, f"{name}.id = s.id") \
        .when_matched_delete("s.status = 'cancelled'") \
        .when_matched_update({"status": "s.status", "n": F.col("s.n") + 1}) \
        .when_not_matched_insert_all(F.col("s.status") != "skip") \
        .when_not_matched_by_source_update({"status": "'stale'"}, f"{name}.status = 'old'") \
        .when_not_matched_by_source_delete() \
        .execute()
    expected = [(1, "paid", 6), (4, "stale", 0), (7, "new", 1)]
    assert rows(t.to_df()) == expected
    assert oracle_rows(oracle, name) == expected
    assert [r.commit_kind for r in t.history().collect() if r.snapshot_id > before and r.commit_kind != "COMPACT"] == \
        ["OVERWRITE" if not keys else "APPEND"]
