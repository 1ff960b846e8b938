"""Writes: INSERT INTO/OVERWRITE in every mode, DataFrame and path writes, snapshots, file sizes."""

import json
from pathlib import Path

import pytest
from pyspark.sql.functions import lit

from conftest import rows, table_dir


def snapshot_ids(table: Path) -> list[int]:
    return sorted(int(p.name.split("-")[1]) for p in (table / "snapshot").glob("snapshot-*"))


def latest_snapshot(table: Path) -> dict:
    return json.loads((table / "snapshot" / f"snapshot-{snapshot_ids(table)[-1]}").read_text())


def data_files(table: Path) -> list[Path]:
    return sorted(table.rglob("data-*.parquet"))


def test_each_insert_is_one_snapshot(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ins (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.ins VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    spark.sql("INSERT INTO paimon.default.ins VALUES (3, 'c', 'x')")
    t = table_dir(warehouse, "ins")
    assert snapshot_ids(t) == [1, 2]
    assert (t / "snapshot" / "LATEST").read_text() == "2"
    snap = latest_snapshot(t)
    assert snap["commitKind"] == "APPEND" and snap["totalRecordCount"] == 3 and snap["deltaRecordCount"] == 1
    assert rows(spark.table("paimon.default.ins")) == [(1, "a", "x"), (2, "b", "y"), (3, "c", "x")]


def test_empty_writes_create_no_snapshot(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.empty (id INT)")
    spark.sql("INSERT INTO paimon.default.empty SELECT 1 WHERE false")
    assert not (table_dir(warehouse, "empty") / "snapshot").exists()
    assert spark.table("paimon.default.empty").count() == 0


def test_insert_overwrite_whole_table(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ow (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.ow VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT OVERWRITE paimon.default.ow VALUES (3, 'c')")
    assert rows(spark.table("paimon.default.ow")) == [(3, "c")]
    snap = latest_snapshot(table_dir(warehouse, "ow"))
    assert snap["commitKind"] == "OVERWRITE" and snap["totalRecordCount"] == 1


def test_overwrite_with_no_rows_empties_its_scope(spark):
    spark.sql("CREATE TABLE paimon.default.owe (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.owe VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT OVERWRITE paimon.default.owe PARTITION (p = 'a') SELECT 1 WHERE false")
    assert rows(spark.table("paimon.default.owe")) == [(2, "b")]
    spark.sql("INSERT OVERWRITE paimon.default.owe SELECT 1, 'x' WHERE false")
    assert spark.table("paimon.default.owe").count() == 0


def test_insert_overwrite_static_partition(spark):
    spark.sql("CREATE TABLE paimon.default.ows (id INT, p STRING, q INT) PARTITIONED BY (p, q)")
    spark.sql("INSERT INTO paimon.default.ows VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 1)")
    spark.sql("INSERT OVERWRITE paimon.default.ows PARTITION (p = 'a', q = 1) VALUES (10)")
    assert rows(spark.table("paimon.default.ows")) == [(2, "a", 2), (3, "b", 1), (10, "a", 1)]
    spark.sql("INSERT OVERWRITE paimon.default.ows PARTITION (p = 'a') VALUES (20, 5)")
    assert rows(spark.table("paimon.default.ows")) == [(3, "b", 1), (20, "a", 5)]


def test_insert_overwrite_dynamic_partitions(spark):
    spark.sql("CREATE TABLE paimon.default.owd (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.owd VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql("INSERT OVERWRITE paimon.default.owd VALUES (10, 'a'), (11, 'd')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert rows(spark.table("paimon.default.owd")) == [(2, "b"), (3, "c"), (10, "a"), (11, "d")]


def test_dataframe_append_and_overwrite_by_path(spark, tmp_path):
    path = str(tmp_path / "by_path")
    df = spark.createDataFrame([(1, "a"), (2, "b")], "id INT, p STRING")
    df.write.format("paimon").mode("append").partitionBy("p").save(path)
    df.write.format("paimon").mode("append").save(path)
    loaded = spark.read.format("paimon").load(path)
    assert loaded.count() == 4
    assert (tmp_path / "by_path" / "p=a" / "bucket-0").is_dir()
    spark.createDataFrame([(9, "z")], "id INT, p STRING").write.format("paimon").mode("overwrite").save(path)
    assert rows(spark.read.format("paimon").load(path)) == [(9, "z")]
    assert snapshot_ids(tmp_path / "by_path") == [1, 2, 3]


def test_dataframe_writes_to_catalog_tables(spark):
    spark.createDataFrame([(1, "a")], "id INT, v STRING").write.format("paimon").saveAsTable("paimon.default.dfw")
    spark.createDataFrame([(2, "b")], "id INT, v STRING").writeTo("paimon.default.dfw").append()
    spark.createDataFrame([("c", 3)], "v STRING, id INT").write.mode("append").saveAsTable("paimon.default.dfw")
    assert rows(spark.table("paimon.default.dfw")) == [(1, "a"), (2, "b"), (3, "c")]
    spark.createDataFrame([(4, "d")], "id INT, v STRING").writeTo("paimon.default.dfw").overwrite(lit(True))
    assert rows(spark.table("paimon.default.dfw")) == [(4, "d")]


def test_target_file_size_rolls_files(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.roll (id BIGINT, payload STRING) TBLPROPERTIES ('target-file-size' = '1 kb')")
    spark.range(0, 20000, 1, 1).selectExpr("id", "sha2(cast(id as string), 256) AS payload").write.format(
        "paimon"
    ).mode("append").saveAsTable("paimon.default.roll")
    files = data_files(table_dir(warehouse, "roll"))
    assert len(files) > 3
    assert spark.table("paimon.default.roll").count() == 20000


def test_files_are_zstd_parquet_with_field_ids(spark, warehouse):
    import pyarrow.parquet as pq

    spark.sql("CREATE TABLE paimon.default.pq (a INT, b STRING)")
    spark.sql("INSERT INTO paimon.default.pq VALUES (1, 'x')")
    f = data_files(table_dir(warehouse, "pq"))[0]
    meta = pq.ParquetFile(f).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    schema = pq.read_schema(f)
    assert [field.name for field in schema] == ["a", "b"]
    assert [field.metadata[b"PARQUET:field_id"] for field in schema] == [b"0", b"1"]


def test_many_commits_merge_small_manifests(spark, warehouse):
    # write-only: eight small files would otherwise be compacted, adding snapshots.
    spark.sql("CREATE TABLE paimon.default.many (id INT) TBLPROPERTIES ('manifest.merge-min-count' = '3', "
              "'write-only' = 'true')")
    for i in range(8):
        spark.sql(f"INSERT INTO paimon.default.many VALUES ({i})")
    t = table_dir(warehouse, "many")
    assert snapshot_ids(t) == list(range(1, 9))
    assert sorted(r[0] for r in spark.table("paimon.default.many").collect()) == list(range(8))
    from fastavro import reader

    snap = latest_snapshot(t)
    with open(t / "manifest" / snap["baseManifestList"], "rb") as fh:
        base = list(reader(fh))
    assert len(base) < 3, "small manifests were not merged"


def test_path_writes_in_every_save_mode(spark, tmp_path):
    from paimon_spark import CommitConflictError, InvalidOptionError

    path = str(tmp_path / "modes")
    df = spark.createDataFrame([(1, "a")], "id INT, p STRING")
    df.write.format("paimon").partitionBy("p").option("target-file-size", "16 mb").save(path)  # errorifexists
    schema = json.loads((tmp_path / "modes" / "schema" / "schema-0").read_text())
    assert schema["partitionKeys"] == ["p"] and schema["options"] == {"target-file-size": "16 mb"}
    with pytest.raises(CommitConflictError, match="already holds a Paimon table"):
        df.write.format("paimon").save(path)
    df.write.format("paimon").mode("ignore").save(path)
    assert spark.read.format("paimon").load(path).count() == 1
    with pytest.raises(InvalidOptionError, match="bukcet"):
        df.write.format("paimon").option("bukcet", "1").save(str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()
