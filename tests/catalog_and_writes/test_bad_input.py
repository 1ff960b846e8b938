"""Bad input gets a clear error naming what is wrong, before anything is written."""

import pytest

from conftest import table_dir
from paimon_spark import CorruptFileError, InvalidOptionError, TableNotFoundError, UnsupportedFeatureError


def snapshot_count(warehouse, name):
    return len(list((table_dir(warehouse, name) / "snapshot").glob("snapshot-*")))


@pytest.mark.parametrize("key, meant", [
    ("bukcet", "bucket"),                                   # two letters swapped
    ("changelog-produce", "changelog-producer"),            # a letter missing
    ("compaction.min.filenum", "compaction.min.file-num"),  # Paimon's prefix, a rest Paimon does not have
    ("snapshot.num-retained.maximum", "snapshot.num-retained.max"),
])
def test_a_misspelt_paimon_option_is_refused_naming_the_option_meant_and_nothing_is_created(spark, warehouse, key,
                                                                                           meant):
    with pytest.raises(InvalidOptionError, match=f"unknown table option '{key}'.*'{meant}'") as error:
        spark.sql(f"CREATE TABLE paimon.default.typo (a INT) TBLPROPERTIES ('{key}' = '2')")
    assert error.value.value == key
    assert not table_dir(warehouse, "typo").exists()
    spark.sql("CREATE TABLE paimon.default.typo_alter (a INT)")
    with pytest.raises(InvalidOptionError, match=f"'{meant}'"):
        spark.sql(f"ALTER TABLE paimon.default.typo_alter SET TBLPROPERTIES ('{key}' = '2')")
    spark.sql("DROP TABLE paimon.default.typo_alter")


def test_keys_that_are_not_paimons_are_kept_as_paimon_keeps_them(spark, oracle):
    """Teams put ownership and lineage in table properties, other engines their own settings: kept on the
    table, shown by SHOW TBLPROPERTIES and $options, and read by pypaimon as any option."""
    spark.sql("CREATE TABLE paimon.default.owned (a INT) TBLPROPERTIES ('team' = 'payments', 'bucket' = '1', "
              "'bucket-key' = 'a')")
    spark.sql("ALTER TABLE paimon.default.owned SET TBLPROPERTIES ('xyc' = 'v', 'lineage.source' = 'kafka://orders')")
    spark.sql("INSERT INTO paimon.default.owned VALUES (1)")
    shown = {r[0]: r[1] for r in spark.sql("SHOW TBLPROPERTIES paimon.default.owned").collect()}
    assert {k: shown.get(k) for k in ("team", "xyc", "lineage.source")} == \
        {"team": "payments", "xyc": "v", "lineage.source": "kafka://orders"}
    options = {r[0]: r[1] for r in spark.sql("SELECT * FROM paimon.default.`owned$options`").collect()}
    assert options["xyc"] == "v" and options["team"] == "payments"
    assert oracle.get_table("default.owned").table_schema.options["lineage.source"] == "kafka://orders"
    spark.sql("ALTER TABLE paimon.default.owned UNSET TBLPROPERTIES ('xyc')")
    assert "xyc" not in {r[0] for r in spark.sql("SHOW TBLPROPERTIES paimon.default.owned").collect()}
    assert [tuple(r) for r in spark.sql("SELECT * FROM paimon.default.owned").collect()] == [(1,)]


@pytest.mark.parametrize("option, value", [
    ("target-file-size", "huge"),
    ("manifest.merge-min-count", "-1"),
    ("file.compression", "rar"),
    ("file.format", "lance"),
    ("metadata.stats-mode", "truncate(x)"),
    ("write-only", "perhaps"),
    ("snapshot.time-retained", "-1 h"),
    ("snapshot.num-retained.min", "0"),
    ("tag.creation-period", "weekly"),
])
def test_malformed_option_values_name_the_option(spark, warehouse, option, value):
    with pytest.raises(InvalidOptionError, match=option.replace(".", r"\.")):
        spark.sql(f"CREATE TABLE paimon.default.malformed (a INT) TBLPROPERTIES ('{option}' = '{value}')")
    assert not table_dir(warehouse, "malformed").exists()


def test_snapshot_retention_min_above_max_is_refused(spark, warehouse):
    with pytest.raises(InvalidOptionError, match="snapshot.num-retained.min' \\(10\\) must not exceed"):
        spark.sql("CREATE TABLE paimon.default.retention (a INT) TBLPROPERTIES ('snapshot.num-retained.max' = '5')")
    # The changelog's bounds default to the snapshots': a lone max below their min is refused too.
    with pytest.raises(InvalidOptionError, match="changelog.num-retained.min' \\(10\\) must not exceed"):
        spark.sql("CREATE TABLE paimon.default.retention (a INT) TBLPROPERTIES ('changelog.num-retained.max' = '5')")
    assert not table_dir(warehouse, "retention").exists()


@pytest.mark.parametrize("option, value", [
    ("tag.create-success-file", "true"),
    ("changelog-file.stats-mode", "full"),
    ("consumer.changelog-only", "true"),
])
def test_valid_paimon_options_not_supported_yet_say_so(spark, warehouse, option, value):
    with pytest.raises(UnsupportedFeatureError, match=f"'{option}'.*(not supported yet|does not support yet)"):
        spark.sql(f"CREATE TABLE paimon.default.unsupported (a INT) TBLPROPERTIES ('{option}' = '{value}')")
    assert not table_dir(warehouse, "unsupported").exists()


def test_dataframe_with_a_wrong_schema_names_the_column(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.strict (id INT NOT NULL, amount DOUBLE)")
    with pytest.raises(Exception, match="id"):
        spark.createDataFrame([(1.0,)], "amount DOUBLE").write.mode("append").saveAsTable("paimon.default.strict")
    with pytest.raises(Exception, match="extra"):
        spark.createDataFrame([(1, 2.0, "x")], "id INT, amount DOUBLE, extra STRING").write.mode(
            "append").saveAsTable("paimon.default.strict")
    with pytest.raises(Exception, match="amount"):
        spark.createDataFrame([(1, "abc")], "id INT, amount STRING").writeTo("paimon.default.strict").append()
    assert not (table_dir(warehouse, "strict") / "snapshot").exists()
    # As in Spark's own tables and Delta, a missing nullable column is written as null.
    spark.createDataFrame([(1,)], "id INT").write.mode("append").saveAsTable("paimon.default.strict")
    assert [tuple(r) for r in spark.table("paimon.default.strict").collect()] == [(1, None)]


def test_null_into_not_null_column_is_refused(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.nn (id INT NOT NULL, v STRING)")
    with pytest.raises(Exception, match="id"):
        spark.sql("INSERT INTO paimon.default.nn VALUES (NULL, 'x')")
    assert not (table_dir(warehouse, "nn") / "snapshot").exists()


def test_reading_a_path_that_is_not_a_table(spark, tmp_path):
    (tmp_path / "just-a-dir").mkdir()
    with pytest.raises(TableNotFoundError, match="just-a-dir is not a Paimon table"):
        spark.read.format("paimon").load(str(tmp_path / "just-a-dir")).collect()


def test_overwrite_filter_on_a_data_column_is_refused(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.owf (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.owf VALUES (1, 'a')")
    from pyspark.sql.functions import col

    with pytest.raises(Exception, match="(?i)overwrite"):
        spark.createDataFrame([(2, "a")], "id INT, p STRING").writeTo("paimon.default.owf").overwrite(col("id") == 1)
    assert snapshot_count(warehouse, "owf") == 1


def corrupt(path):
    path.write_bytes(path.read_bytes()[: max(1, path.stat().st_size // 2)])


def test_truncated_snapshot_names_the_file(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.broken_snap (a INT)")
    spark.sql("INSERT INTO paimon.default.broken_snap VALUES (1)")
    snapshot = table_dir(warehouse, "broken_snap") / "snapshot" / "snapshot-1"
    corrupt(snapshot)
    with pytest.raises(CorruptFileError, match="snapshot/snapshot-1"):
        spark.table("paimon.default.broken_snap").collect()


def test_corrupt_schema_names_the_file(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.broken_schema (a INT)")
    schema = table_dir(warehouse, "broken_schema") / "schema" / "schema-0"
    schema.write_text('{"version": 3, "id": 0, "fields": [ {"id": 0, "name": "a", "ty')
    with pytest.raises(CorruptFileError, match="schema/schema-0"):
        spark.table("paimon.default.broken_schema").collect()


def test_corrupt_manifest_names_the_file(spark, warehouse):
    # Write-only: no compaction plan reads the new manifest back, and a manifest this JVM has read is
    # served from its manifest cache from then on, as in Paimon: the first read is what checks it.
    spark.sql("CREATE TABLE paimon.default.broken_manifest (a INT) TBLPROPERTIES ('write-only' = 'true')")
    spark.sql("INSERT INTO paimon.default.broken_manifest VALUES (1)")
    manifests = [p for p in (table_dir(warehouse, "broken_manifest") / "manifest").iterdir()
                 if p.name.startswith("manifest-") and not p.name.startswith("manifest-list-")]
    corrupt(manifests[0])
    with pytest.raises(CorruptFileError, match=manifests[0].name):
        spark.table("paimon.default.broken_manifest").collect()
    # The lists read whole by that scan are cached: broken on disk now, they still read, and the error
    # still names the manifest, never cached as it did not read.
    lists = [p for p in manifests[0].parent.iterdir() if p.name.startswith("manifest-list-")]
    assert lists
    for listing in lists:
        corrupt(listing)
    with pytest.raises(CorruptFileError, match=manifests[0].name):
        spark.table("paimon.default.broken_manifest").collect()


def test_read_and_write_options_are_checked_not_ignored(spark, warehouse):
    """A malformed value or a misspelt Paimon key is refused wherever it is given; Spark's own keys pass."""
    spark.sql("CREATE TABLE paimon.default.opts (id INT)")
    spark.sql("INSERT INTO paimon.default.opts VALUES (1)")
    path = str(table_dir(warehouse, "opts"))

    def reader():  # a DataFrameReader keeps its options: one per read
        return spark.read.format("paimon")

    with pytest.raises(InvalidOptionError, match="scan.mode") as e:
        reader().option("scan.mode", "bogus").load(path).collect()
    assert e.value.value == "scan.mode"
    with pytest.raises(InvalidOptionError, match="unknown read option 'scan.snapshot-di'"):
        spark.read.option("scan.snapshot-di", "1").table("paimon.default.opts").collect()
    with pytest.raises(InvalidOptionError, match="incremental-between-scan-mode"):
        spark.read.option("incremental-between", "0,1").option("incremental-between-scan-mode", "all") \
            .table("paimon.default.opts").collect()
    with pytest.raises(InvalidOptionError, match="scan.snapshot-id.*cannot be used with 'scan.mode' = latest"):
        spark.read.option("scan.mode", "latest").option("scan.snapshot-id", "1").table("paimon.default.opts").collect()
    with pytest.raises(InvalidOptionError, match="read.stream.maxFilesPerTrigger"):
        spark.readStream.option("read.stream.maxFilesPerTrigger", "none").table("paimon.default.opts") \
            .writeStream.format("memory").queryName("bad_opts").start().processAllAvailable()
    with pytest.raises(UnsupportedFeatureError, match="scan.mode.*from-file-creation-time"):
        reader().option("scan.mode", "from-file-creation-time").load(path).collect()
    df = spark.createDataFrame([(2,)], "id INT")
    with pytest.raises(InvalidOptionError, match="write.merge-schema"):
        df.writeTo("paimon.default.opts").option("write.merge-schema", "maybe").append()
    with pytest.raises(UnsupportedFeatureError, match="'write-only' is a table option"):
        df.writeTo("paimon.default.opts").option("write-only", "true").append()
    assert snapshot_count(warehouse, "opts") == 1
    # Spark's own keys and time travel by Spark's names are not Paimon's to refuse.
    assert reader().option("versionAsOf", "1").load(path).count() == 1


def test_catalog_table_defaults_apply_at_create_and_a_tables_own_win(spark, warehouse):
    # Paimon's catalog option table-default.<option>, here on a second catalog over the same warehouse.
    spark.conf.set("spark.sql.catalog.defaults", "paimonspark.spark.PaimonCatalog")
    spark.conf.set("spark.sql.catalog.defaults.warehouse", str(warehouse))
    spark.conf.set("spark.sql.catalog.defaults.table-default.file.format", "orc")
    spark.conf.set("spark.sql.catalog.defaults.table-default.bucket", "bogus")
    with pytest.raises(InvalidOptionError, match="bucket"):
        spark.sql("CREATE TABLE defaults.default.refused (id INT)")
    spark.sql("CREATE TABLE defaults.default.keyed (id INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql("INSERT INTO defaults.default.keyed VALUES (1)")
    files = spark.sql("SELECT DISTINCT file_format FROM defaults.default.`keyed$files`").collect()
    assert [r[0] for r in files] == ["orc"]
    options = dict(spark.sql("SHOW TBLPROPERTIES defaults.default.keyed").collect())
    assert options["bucket"] == "2" and options["file.format"] == "orc"
