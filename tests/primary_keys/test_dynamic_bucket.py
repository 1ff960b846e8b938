"""Dynamic-bucket primary-key tables (bucket = -1): keys routed by Paimon's HASH index, shared with pypaimon."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pypaimon import Schema

from conftest import oracle_rows, rows, table_dir
from paimon_spark import InvalidOptionError


def key_buckets(oracle, warehouse, name, key="id"):
    """{key: set of buckets whose live files hold it}, read file by file."""
    out = {}
    splits = oracle.get_table(f"default.{name}").new_read_builder().new_scan().plan().splits()
    for s in splits:
        partition = "/".join(f"{k}={v}" for k, v in zip(["dt"], s.partition.values))
        for f in s.files:
            path = table_dir(warehouse, name) / partition / f"bucket-{s.bucket}" / f.file_name
            for k in pq.read_table(path, columns=[key]).column(key).to_pylist():
                out.setdefault(k, set()).add(s.bucket)
    return out


def live_index_hashes(warehouse, name):
    """{(partition bytes, bucket): hashes} of the HASH index files the latest snapshot's index manifest lists."""
    from fastavro import reader
    table = table_dir(warehouse, name)
    latest = (table / "snapshot" / "LATEST").read_text().strip()
    manifest = json.loads((table / "snapshot" / f"snapshot-{latest}").read_text()).get("indexManifest")
    if manifest is None:
        return {}
    with open(table / "manifest" / manifest, "rb") as f:
        entries = [e for e in reader(f) if e["_INDEX_TYPE"] == "HASH"]
    return {(bytes(e["_PARTITION"]), e["_BUCKET"]): (table / "index" / e["_FILE_NAME"]).stat().st_size // 4
            for e in entries}


def index_hashes(warehouse, name):
    """{bucket: number of hashes} from the HASH index files named by the latest index manifest."""
    table = table_dir(warehouse, name)
    latest = (table / "snapshot" / "LATEST").read_text().strip()
    snapshot = json.loads((table / "snapshot" / f"snapshot-{latest}").read_text())
    assert snapshot.get("indexManifest", "").startswith("index-manifest-")
    return {f.name: f.stat().st_size // 4 for f in (table / "index").glob("index-*")}


def test_tables_without_bucket_use_dynamic_buckets(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.dyn (id INT, v STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'dynamic-bucket.target-row-num' = '40')")
    spark.sql("INSERT INTO paimon.default.dyn SELECT CAST(id AS INT), 'a' FROM range(100)")
    spark.sql("INSERT INTO paimon.default.dyn SELECT CAST(id AS INT), 'b' FROM range(50, 150)")
    expected = [(i, "a" if i < 50 else "b") for i in range(150)]
    assert rows(spark.table("paimon.default.dyn")) == expected
    assert oracle_rows(oracle, "dyn") == expected
    buckets = key_buckets(oracle, warehouse, "dyn")
    assert len(buckets) == 150 and all(len(b) == 1 for b in buckets.values())
    # No bucket holds more keys than the target; the index lists every key once.
    per_bucket = {}
    for b in buckets.values():
        per_bucket[next(iter(b))] = per_bucket.get(next(iter(b)), 0) + 1
    assert max(per_bucket.values()) <= 40 and len(per_bucket) >= 4
    assert index_hashes(warehouse, "dyn")
    splits = oracle.get_table("default.dyn").new_read_builder().new_scan().plan().splits()
    assert all(s.total_buckets in (None, -1) for s in splits)


def test_pypaimon_and_we_keep_each_key_in_one_bucket(spark, oracle, warehouse):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    oracle.create_table("default.shared_dyn", Schema.from_pyarrow_schema(
        schema, primary_keys=["id"], options={"bucket": "-1", "dynamic-bucket.target-row-num": "30"}), False)

    def pypaimon_write(ids, v):
        table = oracle.get_table("default.shared_dyn")
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.Table.from_pylist([{"id": i, "v": v} for i in ids], schema=schema))
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()

    pypaimon_write(range(0, 100), "py1")
    spark.sql("INSERT INTO paimon.default.shared_dyn SELECT id, 'spark' FROM range(50, 160)")
    pypaimon_write(range(140, 200), "py2")
    expected = sorted([(i, "py1") for i in range(50)] + [(i, "spark") for i in range(50, 140)] +
                      [(i, "py2") for i in range(140, 200)])
    assert oracle_rows(oracle, "shared_dyn") == expected
    assert rows(spark.table("paimon.default.shared_dyn")) == expected
    buckets = key_buckets(oracle, warehouse, "shared_dyn")
    assert len(buckets) == 200 and all(len(b) == 1 for b in buckets.values())


def test_partitioned_dynamic_bucket_tables(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.dyn_parts (dt STRING, id INT, v INT) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'dt,id', 'dynamic-bucket.target-row-num' = '25')")
    spark.sql("INSERT INTO paimon.default.dyn_parts SELECT IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT), 1 FROM range(100)")
    spark.sql("INSERT INTO paimon.default.dyn_parts SELECT IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT), 2 FROM range(0, 100, 3)")
    expected = sorted(("a" if i % 2 == 0 else "b", i, 2 if i % 3 == 0 else 1) for i in range(100))
    assert rows(spark.table("paimon.default.dyn_parts")) == expected
    assert oracle_rows(oracle, "dyn_parts") == expected


def test_dynamic_bucket_limits_are_explicit(spark):
    with pytest.raises(InvalidOptionError, match="bucket-key"):
        spark.sql("CREATE TABLE paimon.default.dyn_bad (id INT, v INT) TBLPROPERTIES "
                  "('primary-key' = 'id', 'bucket-key' = 'id')")


def test_insert_overwrite_replaces_rows_and_their_hash_index(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.dyn_over (id BIGINT, v STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'dynamic-bucket.target-row-num' = '20')")
    spark.sql("INSERT INTO paimon.default.dyn_over SELECT id, 'a' FROM range(100)")
    spark.sql("INSERT OVERWRITE paimon.default.dyn_over SELECT id, 'b' FROM range(50, 80)")
    expected = [(i, "b") for i in range(50, 80)]
    assert rows(spark.table("paimon.default.dyn_over")) == expected
    assert oracle_rows(oracle, "dyn_over") == expected
    # The index holds the 30 live keys only, in buckets filled from empty again.
    hashes = live_index_hashes(warehouse, "dyn_over")
    assert sum(hashes.values()) == 30 and max(hashes.values()) <= 20
    # pypaimon then upserts through that index, and so do we: every key stays in one bucket.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    builder = oracle.get_table("default.dyn_over").new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.Table.from_pylist([{"id": i, "v": "py"} for i in range(40, 90)], schema=schema))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()
    spark.sql("INSERT INTO paimon.default.dyn_over SELECT id, 'c' FROM range(85, 95)")
    expected = sorted([(i, "py") for i in range(40, 85)] + [(i, "c") for i in range(85, 95)])
    assert rows(spark.table("paimon.default.dyn_over")) == expected
    assert oracle_rows(oracle, "dyn_over") == expected
    buckets = key_buckets(oracle, warehouse, "dyn_over")
    assert len(buckets) == 55 and all(len(b) == 1 for b in buckets.values())
    assert sum(live_index_hashes(warehouse, "dyn_over").values()) == 55


def test_overwriting_partitions_keeps_the_other_partitions_index(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.dyn_over_parts (dt STRING, id INT, v INT) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'dt,id', 'dynamic-bucket.target-row-num' = '25')")
    spark.sql("INSERT INTO paimon.default.dyn_over_parts "
              "SELECT IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT), 1 FROM range(100)")
    before = live_index_hashes(warehouse, "dyn_over_parts")
    spark.sql("INSERT OVERWRITE paimon.default.dyn_over_parts PARTITION (dt = 'a') "
              "SELECT CAST(id AS INT), 2 FROM range(0, 10)")
    after = live_index_hashes(warehouse, "dyn_over_parts")
    untouched = {k: v for k, v in before.items() if b"b" in k[0]}
    assert untouched and {k: v for k, v in after.items() if b"b" in k[0]} == untouched
    assert sum(v for k, v in after.items() if b"a" in k[0]) == 10
    spark.sql("INSERT INTO paimon.default.dyn_over_parts SELECT IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT), 3 "
              "FROM range(5, 15)")
    # Partition a holds ids 0-9 of the overwrite (odd ones too); the later upsert goes by parity.
    updated = set(range(5, 15))
    expected = sorted([("a", i, 2) for i in range(10) if not (i in updated and i % 2 == 0)] +
                      [("a" if i % 2 == 0 else "b", i, 3) for i in updated] +
                      [("b", i, 1) for i in range(1, 100, 2) if i not in updated])
    assert rows(spark.table("paimon.default.dyn_over_parts")) == expected
    assert oracle_rows(oracle, "dyn_over_parts") == expected


def test_pypaimon_reads_keys_moved_across_partitions(spark, oracle):
    spark.sql("CREATE TABLE paimon.default.moved (id INT, v INT, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1')")
    spark.sql("INSERT INTO paimon.default.moved SELECT CAST(id AS INT), 1, IF(id % 2 = 0, 'a', 'b') FROM range(20)")
    spark.sql("INSERT INTO paimon.default.moved SELECT CAST(id AS INT), 2, 'c' FROM range(0, 20, 3)")
    expected = sorted((i, 2, "c") if i % 3 == 0 else (i, 1, "a" if i % 2 == 0 else "b") for i in range(20))
    assert rows(spark.table("paimon.default.moved")) == expected
    assert oracle_rows(oracle, "moved") == expected
