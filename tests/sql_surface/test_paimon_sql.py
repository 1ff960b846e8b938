"""Paimon's SQL surface as Paimon's own Spark tests and docs specify it: how procedures resolve table names
(`USE`, backquotes, catalogs), Paimon's argument lists, its tag statements, its incremental table-valued
functions and `sys.max_pt`."""

from __future__ import annotations

import time

import pytest

from conftest import rows
from history_util import call, tag_names
from paimon_spark import InvalidIdentifierError, InvalidOptionError, UnsupportedFeatureError, VersionAlreadyExistsError
from pyspark.errors import AnalysisException


@pytest.fixture(scope="module")
def t(spark):
    """`default.t`, an append table with three snapshots (ids 1..3 hold 1, 2, 3 rows), and `other.t`, a table of
    the same name in another database."""
    spark.sql("CREATE TABLE paimon.default.t (id INT, v STRING)")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO paimon.default.t VALUES ({i}, 'v{i}')")
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.other")
    spark.sql("CREATE TABLE paimon.other.t (id INT)")
    spark.sql("INSERT INTO paimon.other.t VALUES (100)")
    return "t"


@pytest.fixture
def in_other_database(spark):
    spark.sql("USE paimon.other")
    yield
    spark.sql("USE spark_catalog.default")


def test_an_unqualified_table_is_in_the_current_database_of_the_procedures_catalog(spark, warehouse, t,
                                                                                    in_other_database):
    # `USE paimon.other`: `t` is other.t, and `CALL sys.x` runs in the current catalog.
    spark.sql("CALL sys.create_tag(table => 't', tag => 'in_other')")
    assert "in_other" in tag_names(warehouse, "t", db="other")
    assert "in_other" not in tag_names(warehouse, "t")
    # Qualified names, backquoted parts and the catalog's own name work as in Paimon.
    spark.sql("CALL sys.create_tag(table => 'default.t', tag => 'by_db', snapshot => 1)")
    spark.sql("CALL paimon.sys.create_tag(table => 'paimon.default.t', tag => 'by_catalog', snapshot => 1)")
    spark.sql("CALL sys.create_tag(table => '`default`.`t`', tag => 'quoted', snapshot => 1)")
    assert {"by_db", "by_catalog", "quoted"} <= set(tag_names(warehouse, "t"))
    with pytest.raises(InvalidIdentifierError, match="Cannot run procedure in catalog 'paimon'.*spark_catalog"):
        spark.sql("CALL sys.create_tag(table => 'spark_catalog.default.t', tag => 'x')")


def test_an_unqualified_table_is_in_the_default_database_when_another_catalog_is_current(spark, warehouse, t):
    spark.sql("USE spark_catalog.default")
    spark.sql("CALL paimon.sys.create_tag(table => 't', tag => 'from_elsewhere', snapshot => 2)")
    assert "from_elsewhere" in tag_names(warehouse, "t")
    # `spark_catalog` (Paimon's session catalog over the same warehouse) takes `CALL sys.x` too.
    spark.sql("CALL sys.create_tag(table => 't', tag => 'in_session_catalog', snapshot => 2)")
    assert "in_session_catalog" in tag_names(warehouse, "t")


def test_rollback_takes_paimons_arguments_in_paimons_order(spark, t):
    spark.sql("CREATE TABLE paimon.default.rb (id INT)")
    for i in range(3):
        spark.sql(f"INSERT INTO paimon.default.rb VALUES ({i})")
    # Positional: table, version, snapshot, tag.
    assert [tuple(r) for r in spark.sql("CALL paimon.sys.rollback('default.rb', NULL, 2)").collect()] == [(3, 2)]
    assert rows(spark.table("paimon.default.rb")) == [(0,), (1,)]
    with pytest.raises(InvalidOptionError, match="exactly one of version, snapshot or tag"):
        spark.sql("CALL paimon.sys.rollback('default.rb', '1', 1)")


def test_expire_snapshots_takes_table_options_for_the_call(spark, t):
    spark.sql("CREATE TABLE paimon.default.ex (id INT) TBLPROPERTIES ('write-only' = 'true')")
    for i in range(4):
        spark.sql(f"INSERT INTO paimon.default.ex VALUES ({i})")
    out = call(spark, "expire_snapshots", table="default.ex",
               options="snapshot.num-retained.max=2,snapshot.num-retained.min=2")
    assert out == [(2,)]
    assert rows(spark.sql("SELECT snapshot_id FROM paimon.default.`ex$snapshots`")) == [(3,), (4,)]
    with pytest.raises(InvalidOptionError, match="unknown option 'snapshot.bogus'"):
        call(spark, "expire_snapshots", table="default.ex", options="snapshot.bogus=1")
    with pytest.raises(InvalidOptionError, match="snapshot.num-retained.max"):
        call(spark, "expire_snapshots", table="default.ex", options="snapshot.num-retained.max=zero")


def test_tag_statements(spark, warehouse, t):
    spark.sql("ALTER TABLE paimon.default.t CREATE TAG s1 AS OF VERSION 1")
    spark.sql("ALTER TABLE paimon.default.t CREATE TAG IF NOT EXISTS s1 AS OF VERSION 2")  # exists: nothing changes
    spark.sql("ALTER TABLE paimon.default.t CREATE TAG `s-2` AS OF VERSION 2 RETAIN 3 HOURS")
    assert rows(spark.sql("SELECT * FROM paimon.default.t VERSION AS OF 's1'")) == [(1, "v1")]
    with pytest.raises(VersionAlreadyExistsError, match="'s1'"):
        spark.sql("ALTER TABLE paimon.default.t CREATE TAG s1")
    got = {r["tag_name"]: r for r in spark.sql("SELECT * FROM paimon.default.`t$tags`").collect()}
    assert got["s1"]["snapshot_id"] == 1 and got["s-2"]["snapshot_id"] == 2 and got["s-2"]["time_retained"] == "PT3H"
    # REPLACE moves a tag, and creates a missing one, as Paimon's does.
    spark.sql("ALTER TABLE paimon.default.t REPLACE TAG s1 AS OF VERSION 3")
    spark.sql("ALTER TABLE paimon.default.t CREATE OR REPLACE TAG s3 RETAIN 1 DAYS")
    assert rows(spark.sql("SELECT * FROM paimon.default.t VERSION AS OF 's1'")) == rows(spark.table("paimon.default.t"))
    shown = spark.sql("SHOW TAGS paimon.default.t")
    assert [f.name for f in shown.schema.fields] == ["tag"] and not shown.schema.fields[0].nullable
    assert [r[0] for r in shown.collect()] == sorted(tag_names(warehouse, "t"))
    spark.sql("ALTER TABLE paimon.default.t RENAME TAG s3 TO s4")
    spark.sql("ALTER TABLE paimon.default.t DELETE TAG IF EXISTS s4, `s-2`, never_was")
    assert not {"s3", "s4", "s-2"} & set(tag_names(warehouse, "t"))
    # Spark's own statements still parse, and a statement that only starts like a tag statement is Spark's error.
    spark.sql("ALTER TABLE paimon.default.t SET TBLPROPERTIES ('comment' = 'c')")
    with pytest.raises(AnalysisException):
        spark.sql("ALTER TABLE paimon.default.t CREATE TAG")
    with pytest.raises(UnsupportedFeatureError, match="tag statements"):
        spark.sql("SHOW TAGS paimon.default.`t$snapshots`")


def test_incremental_table_valued_functions(spark, t):
    # Snapshots 1..3 each added one row: (1, 3] is rows 2 and 3.
    assert rows(spark.sql("SELECT * FROM paimon_incremental_query('paimon.default.t', 1, 3)")) == [(2, "v2"), (3, "v3")]
    spark.sql("USE paimon.default")
    try:
        assert rows(spark.sql("SELECT id FROM paimon_incremental_query('t', '0', '1')")) == [(1,)]
    finally:
        spark.sql("USE spark_catalog.default")
    times = {r[0]: r[1] for r in spark.sql("SELECT snapshot_id, unix_millis(commit_time) FROM "
                                             "paimon.default.`t$snapshots`").collect()}
    got = spark.sql(f"SELECT id FROM paimon_incremental_between_timestamp('paimon.default.t', {times[1]}, {times[2]})")
    assert rows(got) == [(2,)]
    with pytest.raises(InvalidOptionError, match="paimon_incremental_query takes 3 arguments"):
        spark.sql("SELECT * FROM paimon_incremental_query('paimon.default.t', 1)")


def test_incremental_to_auto_tag_reads_the_diff_from_the_automatic_tag_before(spark):
    spark.sql("CREATE TABLE paimon.default.daily (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'tag.automatic-creation' = 'process-time', 'tag.creation-period' = 'daily')")
    spark.sql("INSERT INTO paimon.default.daily VALUES (1, 'a'), (2, 'b')")
    call(spark, "create_tag", table="default.daily", tag="2026-11-20")
    spark.sql("INSERT INTO paimon.default.daily VALUES (2, 'b2'), (3, 'c')")
    call(spark, "create_tag", table="default.daily", tag="2026-11-22")
    got = spark.sql("SELECT * FROM paimon_incremental_to_auto_tag('paimon.default.daily', '2026-11-22')")
    assert rows(got) == [(2, "b2"), (3, "c")]
    # The first automatic tag has none before it; a tag that is not there reads nothing.
    assert rows(spark.sql("SELECT * FROM paimon_incremental_to_auto_tag('paimon.default.daily', '2026-11-20')")) == []
    assert rows(spark.read.option("incremental-to-auto-tag", "2026-11-25").table("paimon.default.daily")) == []
    with pytest.raises(InvalidOptionError, match="'nope' is not the name of an automatic tag"):
        spark.read.option("incremental-to-auto-tag", "nope").table("paimon.default.daily").collect()


def test_max_pt_is_the_latest_partition_and_prunes_as_a_constant(spark):
    spark.sql("CREATE TABLE paimon.default.pt (id INT, dt STRING, h INT) PARTITIONED BY (dt, h)")
    spark.sql("INSERT INTO paimon.default.pt VALUES (1, '2026-11-25', 1), (2, '2026-11-27', 0), (3, '2026-11-26', 9)")
    assert spark.sql("SELECT paimon.sys.max_pt('paimon.default.pt')").first()[0] == "2026-11-27"
    # Paimon's bucket function under its own name: the bucket a key goes to among n.
    buckets = spark.sql("SELECT paimon.sys.bucket(4, id), paimon.paimon_bucket(4, id) FROM paimon.default.pt").collect()
    assert all(0 <= a < 4 and a == b for a, b in buckets)
    # Its other bucket functions: Hive's hash (of 'x': 120 % 4) and the floor modulo of an integer key.
    assert spark.sql("SELECT paimon.sys.hive_bucket(4, 'x'), paimon.sys.mod_bucket(4, -3), paimon.sys.mod_bucket(4, 9L)").first() == (0, 1, 1)
    with pytest.raises(Exception, match="mod_bucket takes"):
        spark.sql("SELECT paimon.sys.mod_bucket(4, 'x')").collect()
    df = spark.sql("SELECT id FROM paimon.default.pt WHERE dt = paimon.sys.max_pt('paimon.default.pt')")
    assert rows(df) == [(2,)]
    assert "2026-11-27" in df._jdf.queryExecution().optimizedPlan().toString()
    spark.sql("CREATE TABLE paimon.default.unpart (id INT)")
    with pytest.raises(Exception, match="not partitioned"):
        spark.sql("SELECT paimon.sys.max_pt('paimon.default.unpart')").collect()
    spark.sql("CREATE TABLE paimon.default.empty_pt (id INT, dt STRING) PARTITIONED BY (dt)")
    with pytest.raises(Exception, match="has no partitions"):
        spark.sql("SELECT paimon.sys.max_pt('paimon.default.empty_pt')").collect()


def test_session_options_are_table_options_for_every_read_write_and_procedure(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.sess (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'num-sorted-run.compaction-trigger' = '2')")
    try:
        # Paimon's session options: for this table, writes skip compaction; the schema keeps its own options.
        spark.sql("SET `spark.paimon.paimon.default.sess.write-only` = true")
        for i in range(3):
            spark.sql(f"INSERT INTO paimon.default.sess VALUES ({i}, 'v')")
        kinds = [r[0] for r in spark.sql("SELECT commit_kind FROM paimon.default.`sess$snapshots`").collect()]
        assert kinds == ["APPEND"] * 3
        assert "write-only" not in {r[0] for r in spark.sql("SELECT key FROM paimon.default.`sess$options`").collect()}
        # Session-wide, a procedure takes them too: retention of one snapshot.
        spark.sql("SET `spark.paimon.snapshot.num-retained.max` = 1")
        spark.sql("SET `spark.paimon.snapshot.num-retained.min` = 1")
        spark.sql("CALL paimon.sys.expire_snapshots(table => 'default.sess')")
        assert rows(spark.sql("SELECT snapshot_id FROM paimon.default.`sess$snapshots`")) == [(3,)]
        spark.sql("RESET `spark.paimon.snapshot.num-retained.max`")
        spark.sql("RESET `spark.paimon.snapshot.num-retained.min`")
        spark.sql("SET `spark.paimon.paimon.default.sess.bucket` = 4")
        with pytest.raises(UnsupportedFeatureError, match="'bucket'"):
            spark.table("paimon.default.sess").collect()
        spark.sql("RESET `spark.paimon.paimon.default.sess.bucket`")
        spark.sql("SET `spark.paimon.paimon.default.sess.target-file-size` = 'huge'")
        with pytest.raises(InvalidOptionError, match="target-file-size"):
            spark.table("paimon.default.sess").collect()
    finally:
        for key in ("paimon.default.sess.write-only", "snapshot.num-retained.max", "snapshot.num-retained.min",
                    "paimon.default.sess.bucket", "paimon.default.sess.target-file-size"):
            spark.sql(f"RESET `spark.paimon.{key}`")
    assert rows(spark.table("paimon.default.sess")) == [(0, "v"), (1, "v"), (2, "v")]
