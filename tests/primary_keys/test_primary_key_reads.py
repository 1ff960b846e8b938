"""Primary-key tables written by pypaimon, read here with merge-on-read (deduplicate engine)."""

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import rows as spark_rows


@pytest.fixture(scope="module")
def oracle(warehouse):
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    catalog.create_database("py", True)
    return catalog


def create(oracle, name, schema, **kwargs):
    oracle.create_table(f"py.{name}", Schema.from_pyarrow_schema(schema, **kwargs), False)


def commit(oracle, name, schema, records):
    table = oracle.get_table(f"py.{name}")
    builder = table.new_batch_write_builder()
    write, committer = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.Table.from_pylist(records, schema=schema))
    committer.commit(write.prepare_commit())
    write.close()
    committer.close()


def rows(df):
    return sorted(spark_rows(df), key=repr)


def pypaimon_rows(oracle, name, columns):
    table = oracle.get_table(f"py.{name}")
    builder = table.new_read_builder()
    table = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return sorted((tuple(r[c] for c in columns) for r in table.to_pylist()), key=repr)


KV = pa.schema([pa.field("k", pa.int64(), nullable=False), ("v", pa.string()), ("n", pa.int64())])


def test_latest_version_of_each_key_wins(spark, oracle):
    create(oracle, "kv", KV, primary_keys=["k"], options={"bucket": "2"})
    commit(oracle, "kv", KV, [{"k": k, "v": f"v{k}-1", "n": 1} for k in range(10)])
    commit(oracle, "kv", KV, [{"k": k, "v": f"v{k}-2", "n": 2} for k in range(0, 10, 2)])
    commit(oracle, "kv", KV, [{"k": 3, "v": "v3-3", "n": 3}, {"k": 11, "v": "new", "n": 3}])
    ours = rows(spark.table("paimon.py.kv"))
    assert ours == pypaimon_rows(oracle, "kv", ["k", "v", "n"])
    assert len(ours) == 11 and (3, "v3-3", 3) in ours and (4, "v4-2", 2) in ours and (5, "v5-1", 1) in ours


def test_filters_on_values_apply_after_the_merge(spark, oracle):
    create(oracle, "older", KV, primary_keys=["k"], options={"bucket": "1"})
    commit(oracle, "older", KV, [{"k": 1, "v": "a", "n": 100}, {"k": 2, "v": "b", "n": 100}])
    commit(oracle, "older", KV, [{"k": 1, "v": "a", "n": 1}])
    # An older version of key 1 matches n > 50; the current one does not, so key 1 must not appear.
    assert rows(spark.sql("SELECT k, n FROM paimon.py.older WHERE n > 50")) == [(2, 100)]
    assert rows(spark.sql("SELECT v FROM paimon.py.older")) == [("a",), ("b",)]


def test_deletes_remove_keys(spark, oracle):
    schema = pa.schema([pa.field("k", pa.int64(), nullable=False), ("v", pa.string()), ("op", pa.string())])
    create(oracle, "deleted", schema, primary_keys=["k"], options={"bucket": "2", "rowkind.field": "op"})
    commit(oracle, "deleted", schema, [{"k": k, "v": "x", "op": "+I"} for k in range(6)])
    commit(oracle, "deleted", schema, [{"k": 2, "v": "x", "op": "-D"}, {"k": 4, "v": "y", "op": "+U"}])
    ours = rows(spark.sql("SELECT k, v FROM paimon.py.deleted"))
    assert ours == [(0, "x"), (1, "x"), (3, "x"), (4, "y"), (5, "x")]
    assert ours == pypaimon_rows(oracle, "deleted", ["k", "v"])


def test_partitioned_primary_key_table(spark, oracle):
    schema = pa.schema([pa.field("dt", pa.string(), nullable=False), pa.field("k", pa.int32(), nullable=False),
                        ("amount", pa.float64())])
    create(oracle, "by_day", schema, primary_keys=["dt", "k"], partition_keys=["dt"], options={"bucket": "3"})
    commit(oracle, "by_day", schema, [{"dt": d, "k": k, "amount": 1.0} for d in ("d1", "d2") for k in range(5)])
    commit(oracle, "by_day", schema, [{"dt": "d2", "k": k, "amount": 2.0} for k in range(3)])
    assert rows(spark.table("paimon.py.by_day")) == pypaimon_rows(oracle, "by_day", ["dt", "k", "amount"])
    assert rows(spark.sql("SELECT k, amount FROM paimon.py.by_day WHERE dt = 'd2' AND k < 2")) == [(0, 2.0), (1, 2.0)]


def test_partial_update_tables(spark, oracle):
    create(oracle, "partial", KV, primary_keys=["k"], options={"bucket": "2", "merge-engine": "partial-update"})
    commit(oracle, "partial", KV, [{"k": k, "v": f"v{k}", "n": None} for k in range(4)])
    commit(oracle, "partial", KV, [{"k": k, "v": None, "n": k * 10} for k in range(2, 6)])
    ours = rows(spark.table("paimon.py.partial"))
    assert ours == pypaimon_rows(oracle, "partial", ["k", "v", "n"])
    assert (2, "v2", 20) in ours and (0, "v0", None) in ours and (5, None, 50) in ours
    assert rows(spark.sql("SELECT n FROM paimon.py.partial WHERE k = 3")) == [(30,)]


def test_aggregation_tables(spark, oracle):
    schema = pa.schema([pa.field("k", pa.int64(), nullable=False), ("total", pa.int64()), ("peak", pa.float64()),
                        ("last", pa.string())])
    create(oracle, "agg", schema, primary_keys=["k"], options={
        "bucket": "2", "merge-engine": "aggregation", "fields.total.aggregate-function": "sum",
        "fields.peak.aggregate-function": "max"})
    commit(oracle, "agg", schema, [{"k": k, "total": 1, "peak": 1.5, "last": "a"} for k in range(3)])
    commit(oracle, "agg", schema, [{"k": k, "total": 10, "peak": 0.5, "last": None} for k in range(2)])
    commit(oracle, "agg", schema, [{"k": 0, "total": 100, "peak": 9.0, "last": "c"}])
    ours = rows(spark.table("paimon.py.agg"))
    assert ours == pypaimon_rows(oracle, "agg", ["k", "total", "peak", "last"])
    assert ours == [(0, 111, 9.0, "c"), (1, 11, 1.5, "a"), (2, 1, 1.5, "a")]


def test_first_row_tables_show_only_compacted_rows_as_pypaimon_does(spark, oracle):
    create(oracle, "firstrow", KV, primary_keys=["k"], options={"bucket": "1", "merge-engine": "first-row"})
    commit(oracle, "firstrow", KV, [{"k": 1, "v": "a", "n": None}])
    # pypaimon wrote level-0 files only: batch reads of a first-row table skip them, ours and pypaimon's.
    assert rows(spark.table("paimon.py.firstrow")) == pypaimon_rows(oracle, "firstrow", ["k", "v", "n"]) == []
    spark.sql("CALL paimon.sys.compact(table => 'py.firstrow')")
    commit(oracle, "firstrow", KV, [{"k": 1, "v": "later", "n": 2}, {"k": 2, "v": "b", "n": 1}])
    spark.sql("CALL paimon.sys.compact(table => 'py.firstrow')")
    expected = [(1, "a", None), (2, "b", 1)]
    assert rows(spark.table("paimon.py.firstrow")) == expected
    assert pypaimon_rows(oracle, "firstrow", ["k", "v", "n"]) == expected


def test_deletion_vector_tables_read_and_compact_as_pypaimon_reads_them(spark, oracle):
    create(oracle, "dv", KV, primary_keys=["k"], options={"bucket": "1", "deletion-vectors.enabled": "true"})
    commit(oracle, "dv", KV, [{"k": k, "v": f"v{k}", "n": k} for k in range(2000)])
    # pypaimon wrote level-0 files only: readers of such tables skip them until a compaction.
    assert rows(spark.table("paimon.py.dv")) == pypaimon_rows(oracle, "dv", ["k", "v", "n"]) == []
    spark.sql("CALL paimon.sys.compact(table => 'py.dv')")
    commit(oracle, "dv", KV, [{"k": 1, "v": "later", "n": 2}])
    # Our write's inline compaction takes pypaimon's small level-0 file too, not the large top level:
    # key 1's old row there is marked in a deletion vector.
    spark.sql("INSERT INTO paimon.py.dv VALUES (3000, 'c', 3)")
    expected = sorted([(k, f"v{k}", k) for k in range(2000) if k != 1] + [(1, "later", 2), (3000, "c", 3)], key=repr)
    assert rows(spark.table("paimon.py.dv")) == expected
    assert pypaimon_rows(oracle, "dv", ["k", "v", "n"]) == expected
    assert spark.sql("SELECT count(*) FROM paimon.py.`dv$table_indexes`").head()[0] == 1
