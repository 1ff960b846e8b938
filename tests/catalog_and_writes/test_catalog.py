"""The catalog: databases, table DDL, the session catalog beside Spark's own tables."""

import json

import pytest

from conftest import rows, table_dir
from paimon_spark import InvalidIdentifierError, InvalidOptionError, UnsupportedFeatureError


def test_databases_create_show_drop(spark, warehouse):
    spark.sql("CREATE DATABASE paimon.sales")
    assert (warehouse / "sales.db").is_dir()
    names = {r[0] for r in spark.sql("SHOW DATABASES IN paimon").collect()}
    assert {"default", "sales"} <= names
    spark.sql("CREATE TABLE paimon.sales.t (a INT)")
    with pytest.raises(Exception, match="(?i)not empty|NON_EMPTY|SCHEMA_NOT_EMPTY"):
        spark.sql("DROP DATABASE paimon.sales")
    spark.sql("DROP DATABASE paimon.sales CASCADE")
    assert not (warehouse / "sales.db").exists()


def test_database_properties_are_refused_not_dropped(spark, warehouse):
    with pytest.raises(UnsupportedFeatureError, match="stores no database properties"):
        spark.sql("CREATE DATABASE paimon.commented COMMENT 'hello'")
    assert not (warehouse / "commented.db").exists()


def test_create_table_writes_schema_zero(spark, warehouse):
    spark.sql(
        "CREATE TABLE paimon.default.events (id BIGINT NOT NULL COMMENT 'event id', kind STRING, dt DATE) "
        "PARTITIONED BY (dt) COMMENT 'all events' TBLPROPERTIES ('target-file-size' = '64 mb')"
    )
    schema = json.loads((table_dir(warehouse, "events") / "schema" / "schema-0").read_text())
    assert schema["version"] == 3
    assert [f["name"] for f in schema["fields"]] == ["id", "kind", "dt"]
    assert [f["type"] for f in schema["fields"]] == ["BIGINT NOT NULL", "STRING", "DATE"]
    assert schema["fields"][0]["description"] == "event id"
    assert schema["partitionKeys"] == ["dt"] and schema["primaryKeys"] == []
    assert schema["options"] == {"target-file-size": "64 mb"}
    assert schema["comment"] == "all events" and schema["highestFieldId"] == 2
    assert ("events",) in [(r.tableName,) for r in spark.sql("SHOW TABLES IN paimon.default").collect()]


def test_describe_and_show_create_table(spark):
    spark.sql("CREATE TABLE paimon.default.d (a INT, p STRING) PARTITIONED BY (p) TBLPROPERTIES ('manifest.merge-min-count'='5')")
    described = {r[0]: r[1] for r in spark.sql("DESCRIBE EXTENDED paimon.default.d").collect()}
    assert described["Provider"] == "paimon"
    assert "manifest.merge-min-count" in described["Table Properties"]
    ddl = spark.sql("SHOW CREATE TABLE paimon.default.d").collect()[0][0]
    assert "USING paimon" in ddl and "PARTITIONED BY (p)" in ddl and "'manifest.merge-min-count' = '5'" in ddl


def test_alter_table_properties_makes_a_new_schema_version(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.alt (a INT)")
    spark.sql("ALTER TABLE paimon.default.alt SET TBLPROPERTIES ('target-file-size' = '32 mb')")
    spark.sql("ALTER TABLE paimon.default.alt UNSET TBLPROPERTIES ('target-file-size')")
    schema_dir = table_dir(warehouse, "alt") / "schema"
    assert sorted(p.name for p in schema_dir.iterdir()) == ["schema-0", "schema-1", "schema-2"]
    assert json.loads((schema_dir / "schema-1").read_text())["options"] == {"target-file-size": "32 mb"}
    assert json.loads((schema_dir / "schema-2").read_text())["options"] == {}
    with pytest.raises(UnsupportedFeatureError, match="Cannot change bucket when it is -1"):
        spark.sql("ALTER TABLE paimon.default.alt SET TBLPROPERTIES ('bucket' = '4')")
    with pytest.raises(InvalidOptionError, match="target-file-size"):
        spark.sql("ALTER TABLE paimon.default.alt SET TBLPROPERTIES ('target-file-size' = 'big')")
    assert len(list(schema_dir.iterdir())) == 3


def test_ctas_and_drop_table_deletes_files(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.src (a INT, b STRING)")
    spark.sql("INSERT INTO paimon.default.src VALUES (1, 'x'), (2, 'y')")
    spark.sql("CREATE TABLE paimon.default.copy PARTITIONED BY (b) AS SELECT * FROM paimon.default.src")
    assert rows(spark.table("paimon.default.copy")) == [(1, "x"), (2, "y")]
    assert (table_dir(warehouse, "copy") / "b=x").is_dir()
    spark.sql("DROP TABLE paimon.default.copy")
    assert not table_dir(warehouse, "copy").exists()


def test_session_catalog_keeps_spark_tables_and_adds_paimon_ones(spark, warehouse):
    spark.sql("CREATE TABLE plain_parquet (a INT) USING parquet")
    spark.sql("CREATE TABLE lake (a INT, b STRING) USING paimon")
    spark.sql("INSERT INTO plain_parquet VALUES (1)")
    spark.sql("INSERT INTO lake VALUES (2, 'two')")
    assert (table_dir(warehouse, "lake") / "schema" / "schema-0").exists()
    assert rows(spark.sql("SELECT p.a, l.b FROM plain_parquet p CROSS JOIN lake l")) == [(1, "two")]
    names = {r.tableName for r in spark.sql("SHOW TABLES").collect()}
    assert {"plain_parquet", "lake"} <= names
    df = spark.createDataFrame([(3, "three")], "a INT, b STRING")
    df.write.format("paimon").mode("append").saveAsTable("lake")
    assert rows(spark.table("lake")) == [(2, "two"), (3, "three")]
    spark.sql("DROP TABLE lake")
    spark.sql("DROP TABLE plain_parquet")
    assert not table_dir(warehouse, "lake").exists()


@pytest.mark.parametrize("name", ["`a/b`", "`..`", "`.hidden`", "`x$y`", "`a:b`"])
def test_path_characters_in_names_are_refused(spark, warehouse, name):
    before = sorted(p.name for p in (warehouse / "default.db").iterdir())
    with pytest.raises(InvalidIdentifierError, match="invalid table name"):
        spark.sql(f"CREATE TABLE paimon.default.{name} (a INT)")
    assert sorted(p.name for p in (warehouse / "default.db").iterdir()) == before


def test_database_names_are_checked_too(spark, warehouse):
    with pytest.raises(InvalidIdentifierError, match="invalid database name"):
        spark.sql("CREATE DATABASE paimon.`../escape`")
    assert not (warehouse.parent / "escape.db").exists()


def test_rename_table_moves_its_directory(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.before_rename (a INT)")
    spark.sql("INSERT INTO paimon.default.before_rename VALUES (1)")
    spark.sql("ALTER TABLE paimon.default.before_rename RENAME TO default.after_rename")
    assert rows(spark.table("paimon.default.after_rename")) == [(1,)]
    assert not table_dir(warehouse, "before_rename").exists()
    assert (table_dir(warehouse, "after_rename") / "schema" / "schema-0").is_file()
    with pytest.raises(UnsupportedFeatureError, match="LOCATION"):
        spark.sql(f"CREATE TABLE paimon.default.located (a INT) LOCATION '{warehouse.parent / 'elsewhere'}'")
