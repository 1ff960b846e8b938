"""Append ingest and full scan: a generated 10-column, 10-partition table written and read back as
a Paimon append table and as plain Spark Parquet, from the same cached DataFrame in one session.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from harness import Comparison, timed

NAME = "append_scan"
TITLE = "Append write and full scan: paimon vs plain Spark Parquet"
PARTITIONS = 10


def generate(spark: SparkSession, rows: int) -> DataFrame:
    """10 columns of the common types; `part` has 10 values and is the partition column.

    Values are derived from the row id so every run writes identical data, with a mix of
    compressible (low-cardinality) and incompressible (hash-like) columns and some nulls.
    """
    id_ = F.col("id")
    return spark.range(0, rows, 1, numPartitions=spark.sparkContext.defaultParallelism * 2).select(
        id_.alias("id"),
        (id_ * 7 % 1000).cast("int").alias("qty"),
        ((id_ % 100_003) * 1.25).alias("price"),
        F.rand(seed=42).alias("score"),
        F.concat(F.lit("customer-"), (id_ % 100_000).cast("string")).alias("customer"),
        F.when(id_ % 10 == 0, F.lit(None)).otherwise(F.substring(F.md5(id_.cast("string")), 1, 16)).alias("note"),
        F.date_add(F.lit("2024-01-01").cast("date"), (id_ % 365).cast("int")).alias("day"),
        F.timestamp_seconds(F.lit(1_700_000_000) + id_).alias("ts"),
        ((id_ % 1_000_000) / 100).cast("decimal(12,2)").alias("amount"),
        F.pmod(F.xxhash64(id_), F.lit(PARTITIONS)).cast("int").alias("part"),
    )


def checksum(df: DataFrame, columns: list[str]) -> tuple:
    """Row count and an order-independent hash of every value, to check both copies hold the source rows."""
    row = df.agg(F.count(F.lit(1)), F.bit_xor(F.xxhash64(*columns))).first()
    return tuple(row)


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    df = generate(spark, rows).cache()
    # Materialize the cache first: the timed writes then measure writing, not data generation.
    assert df.count() == rows
    columns = df.columns
    parquet_path, paimon_path = str(work / "parquet"), str(work / "paimon")

    writers = {
        "parquet": lambda: df.write.mode("overwrite").partitionBy("part").parquet(parquet_path),
        "paimon": lambda: df.write.format("paimon").mode("append").partitionBy("part").save(paimon_path),
    }
    readers = {
        "parquet": lambda: spark.read.parquet(parquet_path),
        "paimon": lambda: spark.read.format("paimon").load(paimon_path),
    }
    paths = {"parquet": parquet_path, "paimon": paimon_path}
    seconds = {(op, system): [] for op in ("write", "scan") for system in paths}

    # An untimed warm-up round at full size: JIT compilation, class loading and the first touch of
    # heap pages made the first write of 10 M rows up to twice as slow as later ones (a smaller
    # warm-up did not absorb it), and would be charged to whichever system happened to go first.
    for system, path in paths.items():
        shutil.rmtree(path, ignore_errors=True)
        writers[system]()
        readers[system]().write.format("noop").mode("overwrite").save()

    for i in range(repeats):
        # Alternate which system goes first, so warm-up and cache effects do not favour one side.
        order = ["parquet", "paimon"] if i % 2 == 0 else ["paimon", "parquet"]
        for system in order:
            shutil.rmtree(paths[system], ignore_errors=True)  # a fresh table each run: append == initial load
            seconds[("write", system)].append(timed(spark, writers[system]))
            print(f"  run {i + 1}: {system:<7} write {seconds[('write', system)][-1]:6.2f}s", flush=True)
        for system in order:
            # The noop sink pulls every row of every column through the reader, and writes nothing.
            scan_all = lambda: readers[system]().write.format("noop").mode("overwrite").save()  # noqa: E731
            seconds[("scan", system)].append(timed(spark, scan_all))
            print(f"  run {i + 1}: {system:<7} scan  {seconds[('scan', system)][-1]:6.2f}s", flush=True)
    results = [Comparison(label, rows, "parquet", "paimon", seconds[(op, "parquet")], seconds[(op, "paimon")])
               for op, label in (("write", "append write"), ("scan", "full scan"))]

    # Untimed check that both copies hold exactly the source rows: a fast but wrong engine must not pass.
    expected = checksum(df, columns)
    for system in ("parquet", "paimon"):
        got = checksum(readers[system]().select(*columns), columns)
        if got != expected:
            raise AssertionError(f"{system} table differs from the source: (count, hash) {got} != {expected}")
    notes = {
        "rows": rows, "columns": len(columns), "partitions": PARTITIONS, "repeats": repeats,
        "parquet_codec": spark.conf.get("spark.sql.parquet.compression.codec"),
        "paimon_codec": "zstd (table default file.compression)",
        "parquet_bytes_on_disk": dir_bytes(Path(parquet_path)),
        "paimon_bytes_on_disk": dir_bytes(Path(paimon_path)),
        "checksum": "count and xxhash64 of all columns match the source on both sides",
    }
    df.unpersist()
    return results, notes
