"""Reads: projection, partition pruning and stats-based file skipping that never loses a row."""

import pytest

from conftest import rows, table_dir

PREDICATES = [
    "v = 7",
    "v < 5",
    "v <= 5",
    "v > 95",
    "v >= 95",
    "v IN (1, 50, 99)",
    "v IS NULL",
    "v IS NOT NULL AND v < 3",
    "v < 3 OR v > 97",
    "NOT (v < 90)",
    "NOT (v IN (1, 2))",
    "s = 'name-0000000042-with-a-long-tail'",
    "s > 'name-0000000090'",
    "s < 'name-0000000005'",
    "p = 'p1' AND v > 40",
    "p IN ('p0', 'p2') OR v = 3",
    "NOT (p = 'p1')",
    "p IS NULL",
    "d > DATE'2024-01-20'",
    "ts < TIMESTAMP'2024-01-01 00:00:10'",
]


@pytest.fixture(scope="module")
def twin_tables(spark, tmp_path_factory):
    """The same rows in a Paimon table and in plain Parquet, spread over many files."""
    spark.sql(
        "CREATE TABLE paimon.default.twin (v INT, s STRING, p STRING, d DATE, ts TIMESTAMP) PARTITIONED BY (p)"
    )
    parquet = str(tmp_path_factory.mktemp("parquet") / "twin")
    for batch in range(5):
        df = spark.range(batch * 20, batch * 20 + 20, 1, 2).selectExpr(
            "CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id AS INT) END AS v",
            "concat('name-', lpad(CAST(id AS STRING), 10, '0'), CASE WHEN id % 2 = 0 THEN '-with-a-long-tail' ELSE '' END) AS s",
            "CASE WHEN id % 10 = 9 THEN NULL ELSE concat('p', CAST(id % 3 AS STRING)) END AS p",
            "date_add(DATE'2024-01-01', CAST(id / 4 AS INT)) AS d",
            "timestamp_seconds(1704067200 + id) AS ts",
        )
        df.writeTo("paimon.default.twin").append()
        df.write.mode("append").parquet(parquet)
    spark.read.parquet(parquet).createOrReplaceTempView("twin_parquet")
    return "paimon.default.twin"


@pytest.mark.parametrize("predicate", PREDICATES)
def test_filters_return_exactly_the_parquet_rows(spark, twin_tables, predicate):
    expected = rows(spark.sql(f"SELECT * FROM twin_parquet WHERE {predicate}"))
    actual = rows(spark.sql(f"SELECT v, s, p, d, ts FROM {twin_tables} WHERE {predicate}"))
    assert actual == expected


def test_projection_reads_only_requested_columns(spark, twin_tables):
    plan = spark.sql(f"SELECT s FROM {twin_tables}")._jdf.queryExecution().executedPlan().toString()
    assert "PaimonScan" in plan and "[s]" in plan
    # With a filter pushed too (Spark pushes filters before it prunes columns).
    filtered = spark.sql(f"SELECT p, v FROM {twin_tables} WHERE v = 4")
    assert "[v, p]" in filtered._jdf.queryExecution().executedPlan().toString()
    assert filtered.collect()[0].asDict() == {"p": "p1", "v": 4}


def test_partition_pruning_skips_other_partitions(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.pruned (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.pruned VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    # Remove partition b's data: a read that still opened it would fail.
    for f in (table_dir(warehouse, "pruned") / "p=b").rglob("*.parquet"):
        f.unlink()
    assert rows(spark.sql("SELECT * FROM paimon.default.pruned WHERE p = 'a'")) == [(1, "a")]
    assert rows(spark.sql("SELECT * FROM paimon.default.pruned WHERE p IN ('a', 'c')")) == [(1, "a"), (3, "c")]
    with pytest.raises(Exception):
        spark.sql("SELECT * FROM paimon.default.pruned").collect()


def test_value_statistics_skip_files(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.skipped (id INT, name STRING)")
    spark.range(0, 100, 1, 1).selectExpr("CAST(id AS INT) id", "'low' name").writeTo("paimon.default.skipped").append()
    spark.range(1000, 1100, 1, 1).selectExpr("CAST(id AS INT) id", "'high' name").writeTo(
        "paimon.default.skipped"
    ).append()
    files = sorted((table_dir(warehouse, "skipped") / "bucket-0").glob("*.parquet"), key=lambda f: f.stat().st_mtime)
    files[-1].unlink()  # the 'high' file
    assert spark.sql("SELECT count(*) FROM paimon.default.skipped WHERE id < 50").collect()[0][0] == 50
    assert spark.sql("SELECT count(*) FROM paimon.default.skipped WHERE name = 'low'").collect()[0][0] == 100
    with pytest.raises(Exception):
        spark.sql("SELECT count(*) FROM paimon.default.skipped WHERE id > 1050").collect()
