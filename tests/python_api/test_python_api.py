"""The Python table API: PaimonTable by name and by path, creation, reads and history, changes, writes and
maintenance; every test runs with a classic and with a Spark Connect session."""

import json

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, DecimalType, DoubleType, StructField, StructType

from conftest import oracle_rows, rows, table_dir
from paimon_spark import PaimonTable, SnapshotNotFoundError, UnsupportedFeatureError, configure_spark_with_paimon
from sessions import mode, spark, warehouse  # noqa: F401 - the classic and Connect session fixtures


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
    # A Paimon table of spark_catalog, beside Spark's own tables, by its three-part name.
    spark.sql("CREATE TABLE spark_catalog.default.beside (id INT) USING paimon")
    beside = PaimonTable.for_name(spark, "spark_catalog.default.beside")
    beside.append(spark.createDataFrame([(1,)], "id INT"))
    assert beside.latest_snapshot_id() == 1 and rows(spark.table("default.beside")) == [(1,)]
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
    with pytest.raises(SnapshotNotFoundError, match="99"):
        orders.read(version=99).collect()
    # The changes of snapshots 2 and 3, led by their row kinds.
    assert rows(orders.changes(start_version=1, end_version=3)) == [("+I", 1, "paid", "d1"), ("-D", 3, None, "d2")]
    times = {r.snapshot_id: r.commit_time for r in history}
    assert rows(orders.changes(start_timestamp=times[1], end_timestamp=times[3])) == \
        rows(orders.changes(start_version=1, end_version=3))
    assert orders.primary_keys() == ["id", "day"] and orders.partition_keys() == ["day"]
    assert orders.schema().fieldNames() == ["id", "status", "day"]
    assert orders.options()["bucket"] == "1"
    assert orders.files().count() >= 1 and orders.partitions().count() == 1
    assert orders.schemas().count() == 1
    # Paimon's SQL extensions reach a Spark Connect server as they reach a classic session.
    spark.sql("ALTER TABLE paimon.default.orders CREATE TAG `by-sql` AS OF VERSION 1")
    assert [r.tag for r in spark.sql("SHOW TAGS paimon.default.orders").collect()] == ["by-sql", "first"]
    assert rows(spark.sql("SELECT id FROM paimon_incremental_query('paimon.default.orders', 0, 1)")) == [(1,), (2,), (3,)]
    spark.sql("ALTER TABLE paimon.default.orders DELETE TAG `by-sql`")


def test_writes_change_rows_in_one_commit_each(spark, oracle, mode):
    spark.sql("CREATE TABLE paimon.default.events (id INT, kind STRING, p INT) PARTITIONED BY (p)")
    t = PaimonTable.for_name(spark, "paimon.default.events")
    t.append(spark.createDataFrame([(i, "view", i % 2) for i in range(6)], "id INT, kind STRING, p INT"))
    t.overwrite(spark.createDataFrame([(10, "click", 1)], "id INT, kind STRING, p INT"), partition={"p": 1})
    if mode == "connect":
        # A Connect Column holds no SQL text to carry: conditions and values go as strings there.
        with pytest.raises(UnsupportedFeatureError, match="SQL strings"):
            t.delete(F.col("id") == 4)
        t.delete("id = 4")
        t.update("id = 0", {"kind": "'click'"})
        t.update("id = 2", {"kind": "upper(kind)"})
    else:
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
    t.rollback_to(timestamp=t.history().where("snapshot_id = 2").first().commit_time)
    assert t.latest_snapshot_id() == 2
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
    # The other two clause kinds: whole-row update and insert of given values.
    again = spark.createDataFrame([(1, "refunded", 0), (9, "new", 2)], "id INT, status STRING, n INT").alias("s")
    t.merge(again, f"{name}.id = s.id") \
        .when_matched_update_all() \
        .when_not_matched_insert({"id": "s.id", "status": "'fresh'", "n": F.col("s.n") * 10}) \
        .execute()
    expected = [(1, "refunded", 0), (4, "stale", 0), (7, "new", 1), (9, "fresh", 20)]
    assert rows(t.to_df()) == expected and oracle_rows(oracle, name) == expected


def test_builders_create_replace_and_keep_tables(spark, oracle, tmp_path):
    t = (PaimonTable.create(spark).name("paimon.default.built")
         .column("id", "BIGINT", nullable=False, comment="the key").column("day", DateType())
         .columns(StructType([StructField("amount", DecimalType(10, 2), metadata={"comment": "in euros"})]))
         .primary_key("id", "day").partitioned_by("day")
         .option("bucket", 2).options({"changelog-producer": "input", "snapshot.num-retained.min": 3})
         .comment("orders by day").execute())
    assert t.primary_keys() == ["id", "day"] and t.partition_keys() == ["day"]
    assert {k: t.options()[k] for k in ("bucket", "changelog-producer", "snapshot.num-retained.min")} == \
        {"bucket": "2", "changelog-producer": "input", "snapshot.num-retained.min": "3"}
    latest = t.schemas().collect()[-1]
    fields = {f["name"]: f for f in json.loads(latest.fields)}
    assert fields["id"]["type"] == "BIGINT NOT NULL" and fields["id"]["description"] == "the key"
    assert fields["amount"]["type"] == "DECIMAL(10, 2)" and fields["amount"]["description"] == "in euros"
    assert latest.comment == "orders by day"
    t.upsert(spark.sql("SELECT 1L AS id, DATE'2026-11-24' AS day, 9.5BD AS amount"))
    assert oracle_rows(oracle, "built", ["id", "amount"]) == [(1, __import__("decimal").Decimal("9.50"))]

    with pytest.raises(Exception, match="already exists"):
        PaimonTable.create(spark).name("paimon.default.built").column("x", "INT").execute()
    PaimonTable.create_if_not_exists(spark).name("paimon.default.built").column("x", "INT").execute()
    assert t.schemas().count() == 1 and t.to_df().count() == 1  # left as it was
    replaced = PaimonTable.create_or_replace(spark).name("paimon.default.built").column("x", "INT").execute()
    assert replaced.schema().fieldNames() == ["x"] and replaced.to_df().count() == 0

    path = str(tmp_path / "by_path")
    by_path = PaimonTable.create(spark).location(path).column("id", "INT").column("v", "STRING").execute()
    by_path.append(spark.createDataFrame([(1, "a")], "id INT, v STRING"))
    assert rows(PaimonTable.for_path(spark, path).to_df()) == [(1, "a")]
    with pytest.raises(ValueError, match="at least one column"):
        PaimonTable.create(spark).name("paimon.default.empty").execute()


def test_stream_changes_carry_row_kinds_into_a_table(spark, tmp_path):
    t = PaimonTable.create(spark).name("paimon.default.streamed").column("id", "INT").column("v", "STRING") \
        .primary_key("id").option("bucket", 1).execute()
    for batch in ([(1, "a"), (2, "b")], [(1, "a2")], [(3, "c")]):
        t.upsert(spark.createDataFrame(batch, "id INT, v STRING"))
    t.delete("id = 2")
    audit = PaimonTable.create(spark).name("paimon.default.streamed_audit") \
        .column("rowkind", "STRING").column("id", "INT").column("v", "STRING").execute()
    query = (t.stream_changes(start_version=2, **{"read.stream.maxFilesPerTrigger": 1}).writeStream
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True)
             .toTable("paimon.default.streamed_audit"))
    query.awaitTermination()
    assert rows(audit.to_df()) == [("+I", 1, "a2"), ("+I", 3, "c"), ("-D", 2, None)]


def test_configure_adds_extra_packages_and_keeps_extensions():
    builder = SparkSession.builder.config("spark.sql.extensions", "my.Extensions")
    configured = configure_spark_with_paimon(builder, warehouse="/tmp/wh", catalog="lake",
                                             extra_packages=["org.example:a:1.0", "org.example:b:2.0"])
    options = configured._options  # type: ignore[attr-defined]
    # After whatever packages the running JVM already has.
    assert options["spark.jars.packages"].split(",")[-2:] == ["org.example:a:1.0", "org.example:b:2.0"]
    assert options["spark.sql.extensions"].split(",")[0] == "my.Extensions"
    assert options["spark.sql.catalog.lake.warehouse"] == "file:///tmp/wh"
    with pytest.raises(ValueError, match="not a valid identifier"):
        configure_spark_with_paimon(SparkSession.builder, catalog="no-dashes")
    rest = {"metastore": "rest", "uri": "http://127.0.0.1:1", "token.provider": "bear", "token": "t"}
    named = configure_spark_with_paimon(SparkSession.builder, warehouse="lake_on_server", catalog="lake",
                                        catalog_options=rest)._options  # type: ignore[attr-defined]
    # A REST catalog's warehouse is its name on the server, kept as given, never made a path.
    assert named["spark.sql.catalog.lake.warehouse"] == "lake_on_server"
    assert named["spark.sql.catalog.lake.metastore"] == "rest"
    with pytest.raises(ValueError, match="needs warehouse"):
        configure_spark_with_paimon(SparkSession.builder, catalog_options=rest)
