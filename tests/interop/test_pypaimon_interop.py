"""Both directions with pypaimon 2.1.0 as the oracle: it reads what we write, we read what it writes."""

import datetime as dt
import math
import os
import time
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pytest
from pypaimon import Schema

from conftest import oracle_append, rows

# Partition values that exercise Java's path escaping and the default partition name.
AWKWARD = ["plain", "with space", "a/b", "c:d", "k=v", "100%", "ünï©ødé", None, ""]


@pytest.fixture(scope="module", autouse=True)
def utc(spark):
    """Spark hands out TIMESTAMP values as naive local times; compare them in UTC on both sides."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.unset("spark.sql.session.timeZone")
    if previous is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = previous
    time.tzset()


def plain(v):
    """A pandas/pyarrow value as the Python value Spark returns."""
    if v is None or v is pd.NaT or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, pd.Timestamp):
        return v.tz_convert("UTC").tz_localize(None).to_pydatetime() if v.tzinfo else v.to_pydatetime()
    if hasattr(v, "item"):
        return v.item()
    return v


def read_with_pypaimon(oracle, name, columns):
    table = oracle.get_table(name)
    builder = table.new_read_builder()
    frame = builder.new_read().to_pandas(builder.new_scan().plan().splits())
    return sorted((tuple(plain(v) for v in r) for r in frame[columns].itertuples(index=False)), key=repr)


def spark_rows(spark, name, columns):
    return sorted((tuple(r) for r in spark.table(name).select(*columns).collect()), key=repr)


@pytest.mark.parametrize(
    "ptype, values",
    [
        ("STRING", AWKWARD),
        ("INT", [1, -7, 2147483647, None]),
        ("DATE", [dt.date(2024, 1, 1), dt.date(1969, 12, 31), None]),
        ("TIMESTAMP_NTZ", [dt.datetime(2024, 1, 1, 12, 0), dt.datetime(2024, 1, 1, 12, 0, 1, 123000), None]),
        ("TIMESTAMP", [dt.datetime(2024, 1, 1, 12, 0), dt.datetime(2023, 7, 1, 0, 0, 0, 5), None]),
        ("DECIMAL(12, 3)", [Decimal("1.500"), Decimal("-99999.125"), None]),
    ],
)
def test_pypaimon_reads_our_partitioned_tables(spark, oracle, ptype, values):
    name = "interop_" + ptype.split("(")[0].lower()
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, note STRING, p {ptype}) PARTITIONED BY (p)")
    schema = f"id INT, note STRING, p {ptype}"
    data = [(i, f"row {i}", v) for i, v in enumerate(values)]
    spark.createDataFrame(data, schema).writeTo(f"paimon.default.{name}").append()
    spark.createDataFrame([(100 + i, "again", v) for i, v in enumerate(values)], schema).writeTo(
        f"paimon.default.{name}"
    ).append()
    ours = spark_rows(spark, f"paimon.default.{name}", ["id", "note", "p"])
    assert len(ours) == 2 * len(values)
    assert read_with_pypaimon(oracle, f"default.{name}", ["id", "note", "p"]) == ours


@pytest.mark.parametrize("file_format", ["parquet", "orc", "avro"])
def test_pypaimon_reads_every_type_we_write(spark, oracle, file_format):
    name = f"interop_types_{file_format}"
    spark.sql(
        f"CREATE TABLE paimon.default.{name} (b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, "
        "d DOUBLE, dec10 DECIMAL(10, 2), dec30 DECIMAL(30, 8), str STRING, bin BINARY, day DATE, ntz TIMESTAMP_NTZ) "
        f"TBLPROPERTIES ('file.format' = '{file_format}')"
    )
    spark.sql(
        f"INSERT INTO paimon.default.{name} VALUES (true, 7Y, -300S, 42, 9000000000L, 1.5F, -2.25D, "
        "12345678.91BD, 1234567890123456789012.12345678BD, 'héllo', X'0102FF', DATE'2024-02-29', "
        "TIMESTAMP_NTZ'2023-06-15 08:00:00.5'), (NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    columns = ["b", "t", "s", "i", "l", "f", "d", "dec10", "dec30", "str", "bin", "day", "ntz"]
    ours = [tuple(bytes(v) if isinstance(v, (bytearray, memoryview)) else v for v in r)
            for r in spark_rows(spark, f"paimon.default.{name}", columns)]
    assert read_with_pypaimon(oracle, f"default.{name}", columns) == sorted(ours, key=repr)


def test_pypaimon_reads_after_overwrite(spark, oracle):
    # A one-byte threshold: the commit after the overwrite compacts the manifests fully (its DELETE goes).
    spark.sql("CREATE TABLE paimon.default.interop_ow (id INT, p STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('manifest.full-compaction-threshold-size' = '1 b')")
    spark.sql("INSERT INTO paimon.default.interop_ow VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT OVERWRITE paimon.default.interop_ow PARTITION (p = 'a') VALUES (3)")
    assert read_with_pypaimon(oracle, "default.interop_ow", ["id", "p"]) == [(2, "b"), (3, "a")]
    deleted = "SELECT sum(num_deleted_files) FROM paimon.default.`interop_ow$manifests`"
    assert spark.sql(deleted).first()[0] == 1
    spark.sql("INSERT INTO paimon.default.interop_ow VALUES (4, 'b')")
    assert spark.sql(deleted).first()[0] == 0
    assert read_with_pypaimon(oracle, "default.interop_ow", ["id", "p"]) == [(2, "b"), (3, "a"), (4, "b")]


def test_we_read_pypaimon_tables_after_several_commits(spark, oracle):
    oracle.create_database("pyside", True)
    arrow_schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64()), ("dt", pa.string())])
    oracle.create_table("pyside.orders", Schema.from_pyarrow_schema(arrow_schema, partition_keys=["dt"]), False)
    expected = []
    for batch in range(4):
        data = [(batch * 10 + i, f"n{i}", i * 1.5, f"2024-01-0{1 + i % 3}") for i in range(10)]
        expected += data
        oracle_append(oracle, "pyside.orders", pa.Table.from_pylist(
            [dict(zip(arrow_schema.names, r)) for r in data], schema=arrow_schema))
    assert rows(spark.table("paimon.pyside.orders")) == sorted(expected, key=lambda r: r[0])
    assert rows(spark.sql("SELECT * FROM paimon.pyside.orders WHERE dt = '2024-01-02'")) == sorted(
        (r for r in expected if r[3] == "2024-01-02"), key=lambda r: r[0])
    # Our append to their table, then their read sees both.
    spark.sql("INSERT INTO paimon.pyside.orders VALUES (999, 'ours', 0.5, '2024-01-01')")
    theirs = read_with_pypaimon(oracle, "pyside.orders", ["id", "name", "amount", "dt"])
    assert (999, "ours", 0.5, "2024-01-01") in theirs and len(theirs) == 41
    oracle_append(oracle, "pyside.orders", pa.Table.from_pylist(
        [{"id": 1000, "name": "py", "amount": 1.0, "dt": "2024-01-03"}], schema=arrow_schema))
    assert spark.table("paimon.pyside.orders").count() == 42
