"""Every supported type round-trips through SQL and DataFrames, and is stored with Paimon's type names."""

import datetime as dt
import json
from decimal import Decimal

from pyspark.sql import Row

from conftest import table_dir

DDL = (
    "b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, dec10 DECIMAL(10, 2), "
    "dec30 DECIMAL(30, 8), str STRING, c CHAR(5), vc VARCHAR(10), bin BINARY, day DATE, ts TIMESTAMP, "
    "ntz TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, DOUBLE>, st STRUCT<x: INT, y: STRUCT<z: STRING>>, "
    "arrst ARRAY<STRUCT<a: INT>>"
)

VALUES = (
    "true, 7Y, -300S, 42, 9000000000L, 1.5F, -2.25D, 12345678.91BD, 1234567890123456789012.12345678BD, "
    "'héllo', 'ab', 'varchar', X'0102FF', DATE'2024-02-29', TIMESTAMP'2024-01-01 12:34:56.123456', "
    "TIMESTAMP_NTZ'2023-06-15 08:00:00.5', array(1, NULL, 3), map('k', 1.0D, 'n', NULL), "
    "named_struct('x', 1, 'y', named_struct('z', 'deep')), array(named_struct('a', 5))"
)

NAMES = ["b", "t", "s", "i", "l", "f", "d", "dec10", "dec30", "str", "c", "vc", "bin", "day", "ts", "ntz", "arr", "m",
         "st", "arrst"]

EXPECTED_TYPES = [
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(30, 8)",
    "STRING", "CHAR(5)", "VARCHAR(10)", "BYTES", "DATE", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(6)",
]


def test_all_types_through_sql(spark, warehouse):
    spark.sql(f"CREATE TABLE paimon.default.types ({DDL})")
    spark.sql(f"INSERT INTO paimon.default.types VALUES ({VALUES})")
    spark.sql("INSERT INTO paimon.default.types (i) VALUES (0)")
    got = spark.sql("SELECT * FROM paimon.default.types WHERE i = 42").collect()[0]
    assert got.b is True and got.t == 7 and got.s == -300 and got.l == 9000000000
    assert got.f == 1.5 and got.d == -2.25
    assert got.dec10 == Decimal("12345678.91") and got.dec30 == Decimal("1234567890123456789012.12345678")
    assert got.str == "héllo" and got.c == "ab   " and got.vc == "varchar" and bytes(got.bin) == b"\x01\x02\xff"
    assert got.day == dt.date(2024, 2, 29)
    assert got.ts == dt.datetime(2024, 1, 1, 12, 34, 56, 123456)
    assert got.ntz == dt.datetime(2023, 6, 15, 8, 0, 0, 500000)
    assert got.arr == [1, None, 3] and got.m == {"k": 1.0, "n": None}
    assert got.st == Row(x=1, y=Row(z="deep")) and got.arrst == [Row(a=5)]
    nulls = spark.sql("SELECT * FROM paimon.default.types WHERE i = 0").collect()[0].asDict()
    assert all(v is None for k, v in nulls.items() if k != "i")

    schema = json.loads((table_dir(warehouse, "types") / "schema" / "schema-0").read_text())
    assert [f["type"] for f in schema["fields"][: len(EXPECTED_TYPES)]] == EXPECTED_TYPES
    by_name = {f["name"]: f["type"] for f in schema["fields"]}
    assert by_name["m"]["key"] == "STRING NOT NULL"
    assert by_name["st"]["type"] == "ROW" and by_name["st"]["fields"][1]["type"]["fields"][0]["name"] == "z"
    ids = [f["id"] for f in schema["fields"]]
    assert len(set(ids)) == len(ids) and schema["highestFieldId"] >= max(ids)


def test_all_types_through_dataframes(spark, tmp_path):
    source = spark.sql(f"SELECT {VALUES}").toDF(*NAMES)
    path = str(tmp_path / "typed")
    source.write.format("paimon").mode("append").save(path)
    back = spark.read.format("paimon").load(path)
    assert back.collect() == source.collect()
    assert [f.dataType.simpleString() for f in back.schema] == [f.dataType.simpleString() for f in source.schema]


def test_partitioning_by_many_types(spark, warehouse):
    spark.sql(
        "CREATE TABLE paimon.default.parts (v INT, p_int INT, p_date DATE, p_ts TIMESTAMP, p_dec DECIMAL(8, 3), "
        "p_bool BOOLEAN) PARTITIONED BY (p_int, p_date, p_ts, p_dec, p_bool)"
    )
    spark.sql(
        "INSERT INTO paimon.default.parts VALUES (1, -3, DATE'2024-01-01', TIMESTAMP'2024-01-01 12:00:00', 1.5, true), "
        "(2, NULL, NULL, NULL, NULL, NULL)"
    )
    got = {r.v: r for r in spark.table("paimon.default.parts").collect()}
    assert got[1].p_int == -3 and got[1].p_date == dt.date(2024, 1, 1) and got[1].p_dec == Decimal("1.500")
    assert got[2].p_int is None and got[2].p_bool is None
    dirs = {p.relative_to(table_dir(warehouse, "parts")).as_posix() for p in table_dir(warehouse, "parts").rglob("bucket-0")}
    # spark.sql.session.timeZone decides the instant; the directory holds its UTC fields.
    assert any(d.startswith("p_int=-3/p_date=19723/p_ts=2024-01-01T") and "/p_dec=1.500/p_bool=true/" in d for d in dirs)
    assert "p_int=__DEFAULT_PARTITION__/p_date=__DEFAULT_PARTITION__/p_ts=__DEFAULT_PARTITION__/" \
        "p_dec=__DEFAULT_PARTITION__/p_bool=__DEFAULT_PARTITION__/bucket-0" in dirs


FLAT_DDL = ("k INT, b BOOLEAN, t TINYINT, s SMALLINT, l BIGINT, f FLOAT, d DOUBLE, dec5 DECIMAL(5, 2), "
            "dec18 DECIMAL(18, 3), dec30 DECIMAL(30, 8), str STRING, bin BINARY, day DATE, ts TIMESTAMP_NTZ")
FLAT_ROWS = [
    (1, True, -128, -32768, -(2 ** 63), -1.5, float("inf"), Decimal("-999.99"), Decimal("-123456789012345.678"),
     Decimal("-1234567890123456789012.12345678"), "", b"", dt.date(1, 1, 1), dt.datetime(1900, 1, 1, 0, 0, 0, 1)),
    (2, False, 127, 32767, 2 ** 63 - 1, 3.25, -0.0, Decimal("0.01"), Decimal("999999999999999.999"),
     Decimal("0.00000001"), "naïve " * 20, bytes(range(256)), dt.date(9999, 12, 31), dt.datetime(2024, 2, 29, 23, 59, 59)),
    (3,) + (None,) * 13,
]


def test_flat_columns_written_straight_to_parquet_read_back_exactly(spark, warehouse):
    """Tables without nested columns skip Parquet's record assembly: every type's encoding (the three
    decimal widths with their signs, extreme integers, dates far from 1970) must still read back
    exactly, here and in pypaimon, for append files and primary-key files alike."""
    from pypaimon import CatalogFactory

    oracle = CatalogFactory.create({"warehouse": str(warehouse)})
    df = spark.createDataFrame(FLAT_ROWS, FLAT_DDL)
    for name, props in (("flat_append", ""), ("flat_pk", "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")):
        spark.sql(f"CREATE TABLE paimon.default.{name} ({FLAT_DDL}) {props}")
        df.writeTo(f"paimon.default.{name}").append()
        got = sorted((tuple(r) for r in spark.table(f"paimon.default.{name}").collect()), key=lambda r: r[0])
        assert got == FLAT_ROWS
        table = oracle.get_table(f"default.{name}")
        builder = table.new_read_builder()
        read = sorted(builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist(), key=lambda r: r["k"])
        assert [tuple(r.values()) for r in read] == FLAT_ROWS
