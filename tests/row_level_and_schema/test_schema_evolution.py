"""ALTER TABLE column changes: Paimon's rules, old files read by field id, old snapshots as they were."""

import json
from datetime import date, datetime
from decimal import Decimal

import pytest
from pyspark.errors import AnalysisException

from conftest import oracle_rows, rows, table_dir
from paimon_spark import SchemaChangeError, UnsupportedFeatureError

PK = "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"


def schema_ids(warehouse, name):
    return sorted(int(p.name.split("-")[1]) for p in (table_dir(warehouse, name) / "schema").glob("schema-*"))


def latest_schema(warehouse, name):
    return json.loads((table_dir(warehouse, name) / "schema" / f"schema-{schema_ids(warehouse, name)[-1]}").read_text())


@pytest.mark.parametrize("kind", ["append", "pk"])
def test_columns_renamed_added_retyped_moved_and_dropped_keep_their_data(spark, warehouse, oracle, kind):
    name = f"evolve_{kind}"
    t = f"paimon.default.{name}"
    spark.sql(f"CREATE TABLE {t} (id INT, a INT, b STRING, s STRUCT<x: INT, y: STRING>, "
              f"l ARRAY<STRUCT<p: INT>>) {PK if kind == 'pk' else ''}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 10, 'one', named_struct('x', 1, 'y', 'a'), array(named_struct('p', 1))), "
              "(2, 20, 'two', named_struct('x', 2, 'y', 'b'), array(named_struct('p', 2)))")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN b TO b2")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN a TYPE BIGINT")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN c DOUBLE COMMENT 'added' AFTER id")
    spark.sql(f"ALTER TABLE {t} ADD COLUMNS (s.z INT, l.element.q STRING)")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN s.x TO x2")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN b2 FIRST")
    spark.sql(f"INSERT INTO {t} VALUES ('three', 3, 3.5, 30, named_struct('x2', 3, 'y', 'c', 'z', 9), "
              "array(named_struct('p', 3, 'q', 'q3')))")
    expected = [
        ("one", 1, None, 10, (1, "a", None), [(1, None)]),
        ("two", 2, None, 20, (2, "b", None), [(2, None)]),
        ("three", 3, 3.5, 30, (3, "c", 9), [(3, "q3")]),
    ]
    as_tuples = [(r[0], r[1], r[2], r[3], tuple(r[4]), [tuple(e) for e in r[5]])
                 for r in spark.sql(f"SELECT * FROM {t} ORDER BY id").collect()]
    assert as_tuples == expected
    # Filters on evolved columns reach old files under their old names and types, and never drop a row.
    assert rows(spark.sql(f"SELECT id FROM {t} WHERE a > 15 AND b2 <> 'x'")) == [(2,), (3,)]
    assert rows(spark.sql(f"SELECT id FROM {t} WHERE s.x2 = 1")) == [(1,)]
    # Before any change, the first snapshot still reads with the schema it was written with.
    assert spark.sql(f"SELECT * FROM {t} VERSION AS OF 1").columns == ["id", "a", "b", "s", "l"]
    assert rows(spark.sql(f"SELECT id, a, b FROM {t} VERSION AS OF 1")) == [(1, 10, "one"), (2, 20, "two")]

    spark.sql(f"ALTER TABLE {t} DROP COLUMN s.y")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN c")
    assert rows(spark.sql(f"SELECT id, s FROM {t}")) == [(1, (1, None)), (2, (2, None)), (3, (3, 9))]
    # Field ids: kept through renames, moves and type changes; new ones from highestFieldId, never reused.
    schema = latest_schema(warehouse, name)
    ids = {f["name"]: f["id"] for f in schema["fields"]}
    assert (ids["id"], ids["a"], ids["b2"]) == (0, 1, 2)
    assert schema["highestFieldId"] >= max(ids.values())
    assert [f["name"] for f in schema["fields"]] == ["b2", "id", "a", "s", "l"]
    # pypaimon maps the old files by field id as well.
    assert oracle_rows(oracle, name, ["id", "a", "b2"]) == [(1, 10, "one"), (2, 20, "two"), (3, 30, "three")]
    # Compaction rewrites the old files into the current schema without losing a value.
    spark.sql(f"CALL sys.compact(table => 'default.{name}', compact_strategy => 'full')")
    assert rows(spark.sql(f"SELECT id, a, b2, s FROM {t}")) == [
        (1, 10, "one", (1, None)), (2, 20, "two", (2, None)), (3, 30, "three", (3, 9))]


WIDENINGS = [
    ("TINYINT", "SMALLINT", "7", 7),
    ("SMALLINT", "INT", "7", 7),
    ("INT", "BIGINT", "2147483647", 2147483647),
    ("INT", "DECIMAL(12, 2)", "42", Decimal("42.00")),
    ("FLOAT", "DOUBLE", "1.5", 1.5),
    ("DECIMAL(10, 2)", "DECIMAL(12, 2)", "12.34", Decimal("12.34")),
    ("INT", "STRING", "42", "42"),
    ("DATE", "TIMESTAMP_NTZ", "DATE'2024-01-02'", datetime(2024, 1, 2)),
    ("VARCHAR(5)", "STRING", "'abc'", "abc"),
]


def test_widened_columns_read_old_values_in_the_new_type(spark, oracle):
    """One column per widening Spark's ALTER COLUMN lets through; each written before its change."""
    columns = ", ".join(f"c{i} {source}" for i, (source, _, _, _) in enumerate(WIDENINGS))
    spark.sql(f"CREATE TABLE paimon.default.widened (id INT, {columns})")
    spark.sql(f"INSERT INTO paimon.default.widened VALUES (1, {', '.join(v for _, _, v, _ in WIDENINGS)})")
    for i, (_, target, _, _) in enumerate(WIDENINGS):
        spark.sql(f"ALTER TABLE paimon.default.widened ALTER COLUMN c{i} TYPE {target}")
    spark.sql("INSERT INTO paimon.default.widened (id) VALUES (2)")
    assert rows(spark.sql("SELECT * FROM paimon.default.widened")) == [
        (1, *[expected for _, _, _, expected in WIDENINGS]), (2, *[None] * len(WIDENINGS))]
    # A filter on a widened column keeps the old file that holds the value.
    for i, (_, _, value, _) in enumerate(WIDENINGS):
        assert spark.sql(f"SELECT id FROM paimon.default.widened WHERE c{i} = {value}").collect()[0][0] == 1, WIDENINGS[i]
    assert oracle_rows(oracle, "widened", ["id"]) == [(1,), (2,)]


def test_merge_engines_keep_working_across_changes(spark):
    spark.sql("CREATE TABLE paimon.default.partial (id INT, a INT, b STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'partial-update')")
    spark.sql("INSERT INTO paimon.default.partial VALUES (1, 1, NULL)")
    spark.sql("ALTER TABLE paimon.default.partial ADD COLUMN c INT")
    spark.sql("INSERT INTO paimon.default.partial VALUES (1, NULL, 'b', NULL), (1, NULL, NULL, 3)")
    assert rows(spark.sql("SELECT * FROM paimon.default.partial")) == [(1, 1, "b", 3)]

    spark.sql("CREATE TABLE paimon.default.agg (id INT, total INT, n INT) TBLPROPERTIES "
              "('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.total.aggregate-function' = 'sum')")
    spark.sql("INSERT INTO paimon.default.agg VALUES (1, 2147483600, 1)")
    spark.sql("ALTER TABLE paimon.default.agg ALTER COLUMN total TYPE BIGINT")
    spark.sql("ALTER TABLE paimon.default.agg RENAME COLUMN total TO amount")
    spark.sql("INSERT INTO paimon.default.agg VALUES (1, 1000, 2)")
    # The sum crosses INT's range: the old value is read as BIGINT before it is added, and the
    # aggregate option follows the rename.
    assert rows(spark.sql("SELECT * FROM paimon.default.agg")) == [(1, 2147484600, 2)]


@pytest.mark.parametrize("statement, column", [
    ("ALTER TABLE {t} DROP COLUMN id", "id"),
    ("ALTER TABLE {t} DROP COLUMN p", "p"),
    ("ALTER TABLE {t} RENAME COLUMN p TO p2", "p"),
    ("ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT", "id"),
    ("ALTER TABLE {t} ALTER COLUMN p TYPE BIGINT", "p"),
    ("ALTER TABLE {t} ADD COLUMN _KEY_x INT", "_KEY_x"),
    ("ALTER TABLE {t} ALTER COLUMN id DROP NOT NULL", "id"),
])
def test_refused_changes_name_the_column_and_change_nothing(spark, warehouse, statement, column):
    name = "refusals"
    t = f"paimon.default.{name}"
    spark.sql(f"CREATE TABLE IF NOT EXISTS {t} (id INT, p INT, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id, p', 'bucket' = '1')")
    before = schema_ids(warehouse, name)
    with pytest.raises(SchemaChangeError, match=f"column '{column}'"):
        spark.sql(statement.format(t=t))
    assert schema_ids(warehouse, name) == before


@pytest.mark.parametrize("statement, column", [
    ("ALTER TABLE {t} ADD COLUMN v STRING", "v"),
    ("ALTER TABLE {t} RENAME COLUMN v TO id", "id"),
    ("ALTER TABLE {t} RENAME COLUMN nope TO other", "nope"),
])
def test_changes_spark_itself_refuses_change_nothing(spark, warehouse, statement, column):
    """Spark's analyzer checks that a column exists, or does not, before the catalog is asked."""
    spark.sql("CREATE TABLE IF NOT EXISTS paimon.default.analyzed (id INT, v STRING)")
    before = schema_ids(warehouse, "analyzed")
    with pytest.raises(AnalysisException, match=f"`{column}`"):
        spark.sql(statement.format(t="paimon.default.analyzed"))
    assert schema_ids(warehouse, "analyzed") == before


def test_options_paimon_keeps_fixed_cannot_be_changed(spark, warehouse):
    spark.sql(f"CREATE TABLE paimon.default.fixed (id INT, v STRING) {PK}")
    before = schema_ids(warehouse, "fixed")
    for key, value in [("merge-engine", "first-row"), ("bucket-key", "v"), ("sequence.field", "v")]:
        with pytest.raises(UnsupportedFeatureError, match=f"option '{key}' cannot be changed"):
            spark.sql(f"ALTER TABLE paimon.default.fixed SET TBLPROPERTIES ('{key}' = '{value}')")
    with pytest.raises(Exception, match="default value"):
        spark.sql("ALTER TABLE paimon.default.fixed ADD COLUMN d INT DEFAULT 3")
    assert schema_ids(warehouse, "fixed") == before


def test_concurrent_schema_changes_both_land(spark, warehouse):
    """Two writers altering the same table at once: a change that finds its schema id taken is applied again on top."""
    from concurrent.futures import ThreadPoolExecutor

    spark.sql("CREATE TABLE paimon.default.racing (id INT)")

    def add_columns(prefix):
        for i in range(4):
            spark.sql(f"ALTER TABLE paimon.default.racing ADD COLUMN {prefix}{i} INT")

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(add_columns, ["a", "b"]))
    columns = [f["name"] for f in latest_schema(warehouse, "racing")["fields"]]
    assert sorted(columns) == sorted(["id"] + [f"{p}{i}" for p in "ab" for i in range(4)])
    assert schema_ids(warehouse, "racing") == list(range(9))


def test_old_files_are_skipped_by_statistics_of_renamed_and_widened_columns(spark, warehouse):
    t = "paimon.default.skipping"
    spark.sql(f"CREATE TABLE {t} (id INT, v INT)")
    for start in (0, 1000):
        spark.range(start, start + 100, 1, 1).selectExpr("CAST(id AS INT) id", "CAST(id AS INT) v").writeTo(t).append()
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN v TO w")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN w TYPE BIGINT")
    files = sorted((table_dir(warehouse, "skipping") / "bucket-0").glob("*.parquet"), key=lambda f: f.stat().st_mtime)
    files[-1].unlink()  # the file of 1000..1099: a read that opened it would fail
    assert spark.sql(f"SELECT count(*) FROM {t} WHERE w < 50").collect()[0][0] == 50
    with pytest.raises(Exception):
        spark.sql(f"SELECT count(*) FROM {t} WHERE w >= 1000").collect()


def test_writes_with_schema_evolution_add_columns_and_widen_types(spark, warehouse, oracle):
    spark.sql("CREATE TABLE paimon.default.evolving_writes (id INT, v INT)")
    spark.sql("INSERT INTO paimon.default.evolving_writes VALUES (1, 1)")
    # Without it, a mismatched write is Spark's error naming the table, and nothing changes.
    with pytest.raises(AnalysisException, match="too many data columns"):
        spark.sql("INSERT INTO paimon.default.evolving_writes SELECT 2, 2, 'x'")
    spark.sql("INSERT WITH SCHEMA EVOLUTION INTO paimon.default.evolving_writes "
              "SELECT 2 AS id, 5000000000 AS v, 'x' AS extra")
    assert spark.table("paimon.default.evolving_writes").schema.simpleString() == "struct<id:int,v:bigint,extra:string>"
    assert rows(spark.table("paimon.default.evolving_writes")) == [(1, 1, None), (2, 5000000000, "x")]
    # A change that is not a widening stays Spark's clear error, naming the column.
    with pytest.raises(AnalysisException, match="`v`"):
        spark.sql("INSERT WITH SCHEMA EVOLUTION INTO paimon.default.evolving_writes SELECT 3 AS id, 'text' AS v, 'y'")
    assert schema_ids(warehouse, "evolving_writes") == [0, 1]  # both changes in one schema version
    # With explicit casts allowed, the same write changes the column's type, and old values are cast.
    spark.sql("ALTER TABLE paimon.default.evolving_writes SET TBLPROPERTIES ('write.merge-schema.explicit-cast' = 'true')")
    spark.sql("INSERT WITH SCHEMA EVOLUTION INTO paimon.default.evolving_writes SELECT 3 AS id, 'text' AS v, 'y'")
    assert rows(spark.sql("SELECT id, v FROM paimon.default.evolving_writes")) == [
        (1, "1"), (2, "5000000000"), (3, "text")]

    spark.sql(f"CREATE TABLE paimon.default.evolving_merge (id INT, v STRING) {PK}")
    spark.sql("INSERT INTO paimon.default.evolving_merge VALUES (1, 'a')")
    spark.createDataFrame([(1, "b", 10), (2, "c", 20)], "id INT, v STRING, n INT").createOrReplaceTempView("wider")
    spark.sql("MERGE WITH SCHEMA EVOLUTION INTO paimon.default.evolving_merge t USING wider s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert rows(spark.table("paimon.default.evolving_merge")) == [(1, "b", 10), (2, "c", 20)]
    assert oracle_rows(oracle, "evolving_merge") == [(1, "b", 10), (2, "c", 20)]


def test_merge_schema_option_evolves_dataframe_sql_and_path_writes(spark, warehouse, oracle):
    """Paimon's `write.merge-schema`, asked for by a write option, the session conf or the table option."""
    t = "paimon.default.merge_schema"
    spark.sql(f"CREATE TABLE {t} (id INT, v INT) {PK}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1)")
    wider = spark.createDataFrame([(2, 5000000000, "x")], "id INT, v BIGINT, a STRING")
    with pytest.raises(AnalysisException, match="too many data columns"):
        wider.writeTo(t).append()
    # Spark's DataFrame option and Paimon's name for it: new column added, INT widened to BIGINT.
    wider.writeTo(t).option("mergeSchema", "true").append()
    spark.createDataFrame([(3, 3, "y", 1.5)], "id INT, v BIGINT, a STRING, b DOUBLE") \
        .writeTo(t).option("write.merge-schema", "true").append()
    # A path write takes the option too.
    spark.createDataFrame([(4, 4, "z", 2.5, True)], "id INT, v BIGINT, a STRING, b DOUBLE, c BOOLEAN") \
        .write.format("paimon").mode("append").option("mergeSchema", "true").save(str(table_dir(warehouse, "merge_schema")))
    # The table option, and the write's own `false` overriding it.
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.merge-schema' = 'true')")
    # (A DECIMAL literal would make `b` DECIMAL: Paimon's merge counts every number to DECIMAL as a widening.)
    spark.sql(f"INSERT INTO {t} SELECT 5, 5, 'w', 3.5D, false, DATE'2024-01-01' AS d")
    with pytest.raises(AnalysisException, match="too many data columns"):
        spark.createDataFrame([(6, 6, "u", 0.5, True, None, 7)], "id INT, v BIGINT, a STRING, b DOUBLE, c BOOLEAN, "
                              "d DATE, e INT").writeTo(t).option("mergeSchema", "false").append()
    spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('write.merge-schema')")
    # The session conf, as Paimon's Spark connector reads it, for an INSERT OVERWRITE.
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        spark.sql(f"INSERT OVERWRITE {t} SELECT *, 9 AS e FROM {t}")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    expected = [(1, 1, None, None, None, None, 9), (2, 5000000000, "x", None, None, None, 9),
                (3, 3, "y", 1.5, None, None, 9), (4, 4, "z", 2.5, True, None, 9),
                (5, 5, "w", 3.5, False, date(2024, 1, 1), 9)]
    assert spark.table(t).schema.simpleString() == \
        "struct<id:int,v:bigint,a:string,b:double,c:boolean,d:date,e:int>"
    assert rows(spark.table(t)) == expected
    assert oracle_rows(oracle, "merge_schema") == expected
    # REPLACE COLUMNS would give every column a new id and lose the data: refused, nothing changed.
    before = schema_ids(warehouse, "merge_schema")
    with pytest.raises(UnsupportedFeatureError, match="REPLACE COLUMNS"):
        spark.sql(f"ALTER TABLE {t} REPLACE COLUMNS (id INT, v BIGINT)")
    assert schema_ids(warehouse, "merge_schema") == before
