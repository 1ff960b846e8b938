"""Merge-on-read of tables written here: sections, files read as they are, key filters that skip files, and the
bucket layout scans report to Spark (joins and aggregations on the bucket key without a shuffle)."""

import contextlib
import random

import pytest

from conftest import oracle_rows, rows, table_dir


def plan(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


# Every data file format, with deletion vectors off (merged on read) and on (marked at compaction): the same model.
LAYOUTS = {"parquet": "", "orc-dv": ", 'file.format' = 'orc', 'deletion-vectors.enabled' = 'true'",
           "avro-dv": ", 'file.format' = 'avro', 'deletion-vectors.enabled' = 'true'"}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_random_upserts_and_deletes_match_pypaimon_through_every_compaction_state(spark, oracle, layout):
    name = "churn_" + layout.replace("-", "_")
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v INT, op STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '2', 'rowkind.field' = 'op', 'num-sorted-run.compaction-trigger' = '3', "
              f"'target-file-size' = '8 kb'{LAYOUTS[layout]})")
    rng = random.Random(7)
    expected = {}
    for batch in range(8):
        changes = {}
        for _ in range(300):
            k = rng.randrange(1000)
            changes[k] = "-D" if rng.random() < 0.2 else "+I"
        values = ", ".join(f"({k}, {batch}, '{op}')" for k, op in changes.items())
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES {values}")
        for k, op in changes.items():
            if op == "-D":
                expected.pop(k, None)
            else:
                expected[k] = batch
        want = sorted((k, v) for k, v in expected.items())
        assert rows(spark.sql(f"SELECT id, v FROM paimon.default.{name}")) == want
        assert [(r[0], r[1]) for r in oracle_rows(oracle, name)] == want
        assert rows(spark.sql(f"SELECT id, v FROM paimon.default.{name} WHERE id BETWEEN 100 AND 199")) == \
            [(k, v) for k, v in want if 100 <= k <= 199]
    if "dv" in layout:
        assert rows(spark.sql(f"SELECT count(*) FROM paimon.default.`{name}$files` WHERE level = 0")) == [(0,)]


def test_merged_and_compacted_buckets_are_read_as_batches_except_for_engines_that_build_rows(spark):
    spark.sql("CREATE TABLE paimon.default.settled (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '2', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.settled SELECT CAST(id AS INT), 'a' FROM range(100)")
    spark.sql("INSERT INTO paimon.default.settled SELECT CAST(id AS INT), 'b' FROM range(50)")
    merged = spark.table("paimon.default.settled")
    assert "ColumnarToRow" in plan(merged)
    before = rows(merged)
    spark.sql("CALL paimon.sys.compact(table => 'default.settled')")
    settled = spark.table("paimon.default.settled")
    assert "ColumnarToRow" in plan(settled)
    assert rows(settled) == before and before[0] == (0, "b") and before[-1] == (99, "a")
    # Partial-update builds each key's row from several versions: nothing to gather, read as rows.
    spark.sql("CREATE TABLE paimon.default.built (id INT, a STRING, b STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'merge-engine' = 'partial-update', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.built VALUES (1, 'a1', NULL), (2, 'a2', NULL)")
    spark.sql("INSERT INTO paimon.default.built VALUES (1, NULL, 'b1')")
    built = spark.table("paimon.default.built")
    assert "ColumnarToRow" not in plan(built)
    assert rows(built) == [(1, "a1", "b1"), (2, "a2", None)]


@pytest.mark.parametrize("engine", ["deduplicate", "first-row"])
def test_merged_batches_hold_the_right_rows_across_every_batch_boundary(spark, oracle, engine):
    """Runs read in batches of 3 rows, so the merged batches are cut at every run's batch end; the
    rows gathered from them (nested, null, decimal and partition columns) must be each key's winner."""
    name = engine.replace("-", "_") + "_gathered"
    spark.sql(f"CREATE TABLE paimon.default.{name} (p STRING, id INT, s STRING, d DECIMAL(20, 3), "
              "arr ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x: INT, y: STRUCT<z: STRING>>) PARTITIONED BY (p) "
              f"TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2', 'merge-engine' = '{engine}', "
              f"'write-only' = '{str(engine == 'deduplicate').lower()}')")
    rng = random.Random(11)
    expected = {}
    for version in range(4):
        batch = {}
        for _ in range(60):
            batch[(rng.choice("xy"), rng.randrange(120))] = version
        values = ", ".join(
            f"('{p}', {k}, {'NULL' if k % 7 == 0 else repr(f's{k}-{v}')}, {k}.{v:03d}, array({k}, {v}), "
            f"map('v', {v}), named_struct('x', {v}, 'y', {'NULL' if k % 5 == 0 else f'named_struct({chr(39)}z{chr(39)}, {chr(39)}{k}{chr(39)})'}))"
            for (p, k), v in batch.items())
        spark.sql(f"INSERT INTO paimon.default.{name} VALUES {values}")
        for key, v in batch.items():
            if engine == "deduplicate" or key not in expected:
                expected[key] = v
    if engine == "first-row":
        spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")

    def row(p, k, v):
        return (p, k, None if k % 7 == 0 else f"s{k}-{v}", f"{k}.{v:03d}", [k, v], {"v": v},
                (v, None if k % 5 == 0 else (str(k),)))

    want = sorted((row(p, k, v) for (p, k), v in expected.items()), key=lambda r: (r[0], r[1]))
    spark.conf.set("spark.sql.parquet.columnarReaderBatchSize", "3")
    try:
        df = spark.sql(f"SELECT p, id, s, CAST(d AS STRING), arr, m, st FROM paimon.default.{name}")
        assert "ColumnarToRow" in plan(df)
        got = sorted(((r[0], r[1], r[2], r[3], list(r[4]), dict(r[5]), (r[6].x, None if r[6].y is None else (r[6].y.z,)))
                      for r in df.collect()), key=lambda r: (r[0], r[1]))
    finally:
        spark.conf.unset("spark.sql.parquet.columnarReaderBatchSize")
    assert got == want
    read = sorted(oracle_rows(oracle, name, ["p", "id", "s"]))
    assert read == [r[:3] for r in want]


def test_key_filters_skip_files_of_other_key_ranges(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ranges (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'write-only' = 'true')")
    for start in (0, 100, 200):
        spark.sql(f"INSERT INTO paimon.default.ranges SELECT CAST(id AS INT), 'x' FROM range({start}, {start + 100})")
    files = sorted((table_dir(warehouse, "ranges") / "bucket-0").glob("data-*.parquet"), key=lambda p: p.stat().st_mtime)
    assert len(files) == 3
    for later in files[1:]:
        later.unlink()
    # Only the first file holds keys below 100: the filtered query never opens the deleted ones.
    assert rows(spark.sql("SELECT id FROM paimon.default.ranges WHERE id < 5")) == [(i,) for i in range(5)]
    with pytest.raises(Exception):
        spark.table("paimon.default.ranges").collect()


def test_point_lookups_read_only_the_keys_bucket(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.lookups (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '4', 'write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.lookups SELECT id, 'v' FROM range(1000)")
    [(bucket,)] = spark.sql("SELECT paimon.paimon_bucket(4, CAST(7 AS BIGINT))").collect()
    for other in range(4):
        if other != bucket:
            for f in (table_dir(warehouse, "lookups") / f"bucket-{other}").glob("data-*"):
                f.unlink()
    # The lookup only opens the key's bucket; a scan of the whole table would hit the deleted files.
    assert rows(spark.sql("SELECT id, v FROM paimon.default.lookups WHERE id = 7")) == [(7, "v")]
    with pytest.raises(Exception):
        spark.table("paimon.default.lookups").collect()


@contextlib.contextmanager
def confs(spark, settings):
    """Session settings (under `spark.sql.`) for the block."""
    for k, v in settings.items():
        spark.conf.set(f"spark.sql.{k}", v)
    try:
        yield
    finally:
        for k in settings:
            spark.conf.unset(f"spark.sql.{k}")


def bucketed(spark, name, buckets, extra=""):
    """A 3-partition table bucketed on `id`, written twice (the second write updates half the keys)."""
    spark.sql(f"CREATE TABLE paimon.default.{name} (id BIGINT, day STRING, v STRING) PARTITIONED BY (day) "
              f"TBLPROPERTIES ('primary-key' = 'day,id', 'bucket' = '{buckets}'{extra})")
    spark.sql(f"INSERT INTO paimon.default.{name} SELECT id, CAST(id % 3 AS STRING), '{name}' FROM range(600)")
    spark.sql(f"INSERT INTO paimon.default.{name} SELECT id, CAST(id % 3 AS STRING), '{name}2' FROM range(0, 600, 2)")


JOIN = ("SELECT l.id, l.day, l.v, r.v FROM paimon.default.{l} l JOIN paimon.default.{r} r "
        "ON l.id = r.id AND l.day = r.day")
# Joins on (id, day) are clustered by both: Spark only takes a layout by `bucket(id)` for them without this.
SPJ = {"autoBroadcastJoinThreshold": "-1", "requireAllClusterKeysForCoPartition": "false"}


def shuffled(spark, sql):
    """The rows and plan of a query with the reported layouts ignored."""
    with confs(spark, {"sources.v2.bucketing.enabled": "false"}):
        df = spark.sql(sql)
        assert "Exchange" in plan(df)
        return rows(df)


def test_tables_bucketed_alike_join_and_aggregate_on_the_bucket_key_without_a_shuffle(spark):
    # Tasks of a few files each, so Spark groups several tasks of a bucket; one side with deletion vectors.
    bucketed(spark, "left_side", 4, ", 'source.split.target-size' = '1', 'source.split.open-file-cost' = '1'")
    bucketed(spark, "right_side", 4, ", 'deletion-vectors.enabled' = 'true'")
    with confs(spark, SPJ):
        for sql in (JOIN.format(l="left_side", r="right_side"),
                    "SELECT id, count(*), max(v) FROM paimon.default.left_side GROUP BY id"):
            df = spark.sql(sql)
            assert "Exchange" not in plan(df), plan(df)
            got = rows(df)
            assert got == shuffled(spark, sql) and len(got) == 600
    assert rows(spark.sql("SELECT count(*) FROM paimon.default.left_side")) == [(600,)]


def test_a_bucketed_append_table_joins_a_primary_key_table_bucketed_alike_without_a_shuffle(spark):
    spark.sql("CREATE TABLE paimon.default.appended (id BIGINT, day STRING, v STRING) PARTITIONED BY (day) "
              "TBLPROPERTIES ('bucket' = '4', 'bucket-key' = 'id')")
    spark.sql("INSERT INTO paimon.default.appended SELECT id, CAST(id % 3 AS STRING), 'a' FROM range(600)")
    bucketed(spark, "keyed", 4)
    with confs(spark, SPJ):
        for sql in (JOIN.format(l="appended", r="keyed"), "SELECT id, count(*) FROM paimon.default.appended GROUP BY id"):
            df = spark.sql(sql)
            assert "Exchange" not in plan(df), plan(df)
            assert rows(df) == shuffled(spark, sql) and len(rows(df)) == 600


def test_layouts_that_differ_or_were_rescaled_are_not_reported(spark):
    bucketed(spark, "base", 4)
    bucketed(spark, "eight", 8)
    bucketed(spark, "rescaled", 4)
    spark.sql("ALTER TABLE paimon.default.rescaled SET TBLPROPERTIES ('bucket' = '8')")
    spark.sql("CALL paimon.sys.rescale(table => 'default.rescaled', partitions => 'day=1')")
    with confs(spark, SPJ):
        for other in ("eight", "rescaled"):
            sql = JOIN.format(l="base", r=other)
            df = spark.sql(sql)
            assert "Exchange" in plan(df)
            assert rows(df) == shuffled(spark, sql) and len(rows(df)) == 600
        assert "Exchange" in plan(spark.sql("SELECT id, count(*) FROM paimon.default.rescaled GROUP BY id"))
        # Rescaled whole, the table reports its new count; 4 buckets join 8 when Spark may reduce them.
        spark.sql("CALL paimon.sys.rescale(table => 'default.rescaled')")
        assert "Exchange" not in plan(spark.sql(JOIN.format(l="rescaled", r="eight")))
        sql = JOIN.format(l="base", r="eight")
        with confs(spark, {"sources.v2.bucketing.allowCompatibleTransforms.enabled": "true"}):
            df = spark.sql(sql)
            assert "Exchange" not in plan(df)
            assert rows(df) == shuffled(spark, sql)
