"""Paimon's DDL in Spark as Paimon's Spark tests and docs specify it: SHOW CREATE TABLE that recreates the table,
CREATE TABLE LIKE, CTAS with a primary key, REPLACE TABLE, COMMENT ON TABLE, DESCRIBE, and column defaults kept in
the schema as Paimon keeps them."""

from __future__ import annotations

import json

import pytest
from pypaimon import CatalogFactory

from conftest import rows, table_dir
from paimon_spark import SchemaChangeError, UnsupportedFeatureError


def latest_schema(warehouse, name: str) -> dict:
    files = (table_dir(warehouse, name) / "schema").glob("schema-*")
    return json.loads(max(files, key=lambda p: int(p.name.split("-")[1])).read_text())


def schema_count(warehouse, name: str) -> int:
    return len(list((table_dir(warehouse, name) / "schema").glob("schema-*")))


def definition(schema: dict) -> dict:
    """What makes two tables the same table: all of the schema but its id, time and version."""
    return {k: v for k, v in schema.items() if k not in ("id", "timeMillis", "version")}


def test_show_create_table_and_like_recreate_the_table_and_describe_shows_paimons_properties(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.orig (id INT COMMENT 'the id', p STRING NOT NULL, v STRING DEFAULT 'dv', "
              "n BIGINT) PARTITIONED BY (p) COMMENT 'orders' TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2', "
              "'changelog-producer' = 'lookup', 'snapshot.num-retained.max' = '50')")
    spark.sql("ALTER TABLE paimon.default.orig RENAME COLUMN id TO key_id")
    original = latest_schema(warehouse, "orig")
    assert original["primaryKeys"] == ["key_id", "p"]

    ddl = spark.sql("SHOW CREATE TABLE paimon.default.orig").collect()[0][0]
    assert "'primary-key' = 'key_id,p'" in ddl and "PARTITIONED BY (p)" in ddl and "COMMENT 'orders'" in ddl
    assert "key_id INT NOT NULL COMMENT 'the id'" in ddl and "DEFAULT 'dv'" in ddl
    # The catalog places a table: the statement creates another name where the catalog puts it.
    assert "LOCATION" not in ddl and "'path'" not in ddl
    spark.sql(ddl.replace("paimon.default.orig", "paimon.default.recreated"))
    assert definition(latest_schema(warehouse, "recreated")) == definition(original)

    # LIKE copies the whole definition; the statement's properties override it.
    spark.sql("CREATE TABLE paimon.default.liked LIKE paimon.default.orig TBLPROPERTIES ('bucket' = '3')")
    liked = definition(latest_schema(warehouse, "liked"))
    assert liked == {**definition(original), "options": {**original["options"], "bucket": "3"}}
    spark.sql("CREATE TABLE spark_catalog.default.liked_in_session LIKE paimon.default.orig")
    assert definition(latest_schema(warehouse, "liked_in_session")) == definition(original)

    # The comment: COMMENT ON TABLE and the 'comment' property.
    spark.sql("COMMENT ON TABLE paimon.default.orig IS 'all orders'")
    assert latest_schema(warehouse, "orig")["comment"] == "all orders"
    spark.sql("ALTER TABLE paimon.default.orig SET TBLPROPERTIES ('comment' = 'by property')")
    assert latest_schema(warehouse, "orig")["comment"] == "by property"
    described = {r[0]: r[1] for r in spark.sql("DESCRIBE TABLE EXTENDED paimon.default.orig").collect()}
    assert described["Comment"] == "by property"
    assert described["Location"].endswith("default.db/orig")
    assert "primary-key=key_id,p" in described["Table Properties"] and "bucket=2" in described["Table Properties"]
    spark.sql("ALTER TABLE paimon.default.orig UNSET TBLPROPERTIES ('comment')")
    assert "comment" not in latest_schema(warehouse, "orig")

    # Paimon refuses to change the primary key; nothing is written.
    before = schema_count(warehouse, "orig")
    with pytest.raises(UnsupportedFeatureError, match="Alter primary key is not supported"):
        spark.sql("ALTER TABLE paimon.default.orig SET TBLPROPERTIES ('primary-key' = 'n')")
    with pytest.raises(UnsupportedFeatureError, match="Alter primary key is not supported"):
        spark.sql("ALTER TABLE paimon.default.orig UNSET TBLPROPERTIES ('primary-key')")
    assert schema_count(warehouse, "orig") == before


def test_describe_extended_ends_with_the_not_null_columns_as_paimons_connector_lists_them(spark):
    # Primary-key columns are NOT NULL in Paimon, `day` too.
    spark.sql("CREATE TABLE paimon.default.described (id BIGINT NOT NULL, tags ARRAY<STRING>, s STRUCT<a: INT> NOT NULL, "
              "day STRING) PARTITIONED BY (day) TBLPROPERTIES ('primary-key' = 'id,day', 'bucket' = '1')")
    spark.sql("INSERT INTO paimon.default.described VALUES (1, array('x'), named_struct('a', 1), 'd1')")
    section = [("# Column Not Null", "", ""), ("id", "bigint", "NOT NULL"), ("s", "struct<a:int>", "NOT NULL"),
               ("day", "string", "NOT NULL")]

    def described(statement: str) -> list[tuple]:
        return [tuple(r) for r in spark.sql(statement).collect()]

    extended = described("DESCRIBE TABLE EXTENDED paimon.default.described")
    assert extended[-4:] == section and extended.count(section[0]) == 1 and ("Provider", "paimon", "") in extended
    assert described("DESCRIBE TABLE EXTENDED paimon.default.described PARTITION (day = 'd1')")[-4:] == section
    # Not without EXTENDED, nor for a table whose columns are all nullable, as with Paimon's.
    assert section[0] not in described("DESCRIBE TABLE paimon.default.described")
    spark.sql("CREATE TABLE paimon.default.all_nullable (id INT)")
    assert section[0] not in described("DESCRIBE TABLE EXTENDED paimon.default.all_nullable")


def test_ctas_takes_primary_key_partitioning_and_options_and_replace_starts_a_new_history(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ctas PARTITIONED BY (p) TBLPROPERTIES ('primary-key' = 'id,p', "
              "'bucket' = '2', 'file.format' = 'avro') AS SELECT * FROM VALUES (1, 'a', 'x'), (1, 'a', 'y') AS s(id, p, v)")
    schema = latest_schema(warehouse, "ctas")
    assert (schema["primaryKeys"], schema["partitionKeys"]) == (["id", "p"], ["p"])
    assert schema["options"] == {"bucket": "2", "file.format": "avro"}
    assert len(rows(spark.table("paimon.default.ctas"))) == 1

    # Spark replaces a table of a catalog that stages nothing (Paimon's neither) by a drop and a create: the old
    # snapshots, schemas and tags go with the old table.
    spark.sql("INSERT INTO paimon.default.ctas VALUES (2, 'b', 'z')")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.ctas', tag => 'before')")
    spark.sql("CREATE OR REPLACE TABLE paimon.default.ctas TBLPROPERTIES ('primary-key' = 'id') AS SELECT 9 AS id, 'new' AS v")
    assert rows(spark.table("paimon.default.ctas")) == [(9, "new")]
    assert [r[0] for r in spark.sql("SELECT snapshot_id FROM paimon.default.`ctas$snapshots`").collect()] == [1]
    assert spark.sql("SELECT * FROM paimon.default.`ctas$tags`").count() == 0
    assert schema_count(warehouse, "ctas") == 1 and latest_schema(warehouse, "ctas")["primaryKeys"] == ["id"]
    spark.sql("REPLACE TABLE paimon.default.ctas (id INT, w DOUBLE)")
    assert rows(spark.table("paimon.default.ctas")) == []
    assert [f["name"] for f in latest_schema(warehouse, "ctas")["fields"]] == ["id", "w"]


def test_column_defaults_are_kept_as_paimon_keeps_them_and_written_for_omitted_columns_and_nulls(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.dflt (id INT, s STRING DEFAULT 'dv', n INT DEFAULT 7) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    fields = latest_schema(warehouse, "dflt")["fields"]
    assert [f.get("defaultValue") for f in fields] == [None, "'dv'", "7"]
    spark.sql("INSERT INTO paimon.default.dflt (id) VALUES (1)")
    # The DEFAULT keyword, and a null, which Paimon's writers replace with the default.
    spark.sql("INSERT INTO paimon.default.dflt VALUES (2, DEFAULT, NULL)")
    assert rows(spark.table("paimon.default.dflt")) == [(1, "dv", 7), (2, "dv", 7)]

    spark.sql("ALTER TABLE paimon.default.dflt ALTER COLUMN n SET DEFAULT 9")
    spark.sql("ALTER TABLE paimon.default.dflt ALTER COLUMN s DROP DEFAULT")
    assert [f.get("defaultValue") for f in latest_schema(warehouse, "dflt")["fields"]] == [None, None, "9"]
    spark.sql("UPDATE paimon.default.dflt SET n = DEFAULT WHERE id = 1")
    spark.sql("MERGE INTO paimon.default.dflt t USING (SELECT 3 AS id) s ON t.id = s.id "
              "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)")
    expected = [(1, "dv", 9), (2, "dv", 7), (3, None, 9)]
    assert rows(spark.table("paimon.default.dflt")) == expected
    # pypaimon reads a table with defaults.
    oracle = CatalogFactory.create({"warehouse": str(warehouse)}).get_table("default.dflt")
    builder = oracle.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    assert sorted((r["id"], r["s"], r["n"]) for r in data) == expected

    before = schema_count(warehouse, "dflt")
    with pytest.raises(SchemaChangeError, match=r"Cannot add column \[z\] with default value 5"):
        spark.sql("ALTER TABLE paimon.default.dflt ADD COLUMN z INT DEFAULT 5")
    # Spark takes any constant expression; Paimon keeps only text that casts to the column's type.
    with pytest.raises(SchemaChangeError, match="Unsupported default value `1 \\+ 1` for type INT"):
        spark.sql("ALTER TABLE paimon.default.dflt ALTER COLUMN n SET DEFAULT 1 + 1")
    assert schema_count(warehouse, "dflt") == before
    with pytest.raises(SchemaChangeError, match="Unsupported default value `current_timestamp\\(\\)`"):
        spark.sql("CREATE TABLE paimon.default.dflt_ts (a INT, t TIMESTAMP DEFAULT current_timestamp())")
    with pytest.raises(UnsupportedFeatureError, match="defaults of ARRAY, MAP and ROW columns are not supported"):
        spark.sql("CREATE TABLE paimon.default.dflt_array (a INT, t ARRAY<INT> DEFAULT array(1))")
    assert not table_dir(warehouse, "dflt_ts").exists() and not table_dir(warehouse, "dflt_array").exists()
