"""Append write and full scan in each data file format: Paimon tables in ORC and Avro against the same
table in Parquet, and ORC against Spark's own ORC writer and reader, on append_scan's generated data.

Spark's own Avro data source is not among Spark's jars (it is the separate spark-avro module), so
Avro is held against Parquet only.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

from pyspark.sql import SparkSession

from append_scan import PARTITIONS, checksum, dir_bytes, generate
from harness import Check, Comparison, timed_with_cpu

NAME = "file_formats"
TITLE = "Data file formats: ORC and Avro tables against Parquet tables and Spark's ORC"
# A fifth of the rows other workloads take: five systems each write and scan them, `repeats` times.
ROW_SHARE = 5


def run(spark: SparkSession, rows: int, work: Path, repeats: int) -> tuple[list[Comparison], dict]:
    rows = max(rows // ROW_SHARE, 1000)
    df = generate(spark, rows).cache()
    assert df.count() == rows
    columns = df.columns
    paths = {system: str(work / system) for system in ("spark_orc", "paimon_parquet", "paimon_orc", "paimon_avro")}

    def paimon_writer(file_format: str):
        return lambda: (df.write.format("paimon").mode("append").option("file.format", file_format)
                        .partitionBy("part").save(paths[f"paimon_{file_format}"]))

    writers = {
        "spark_orc": lambda: df.write.mode("overwrite").partitionBy("part").orc(paths["spark_orc"]),
        **{f"paimon_{f}": paimon_writer(f) for f in ("parquet", "orc", "avro")},
    }
    readers = {
        "spark_orc": lambda: spark.read.orc(paths["spark_orc"]),
        **{f"paimon_{f}": (lambda f=f: spark.read.format("paimon").load(paths[f"paimon_{f}"]))
           for f in ("parquet", "orc", "avro")},
    }
    wall = {(op, s): [] for op in ("write", "scan") for s in paths}
    cpu = {(op, s): [] for op in ("write", "scan") for s in paths}

    def scan(system: str) -> None:
        readers[system]().write.format("noop").mode("overwrite").save()

    # An untimed warm-up round (JIT, class loading), as append_scan does.
    for system in paths:
        shutil.rmtree(paths[system], ignore_errors=True)
        writers[system]()
        scan(system)
    for i in range(repeats):
        order = list(paths) if i % 2 == 0 else list(reversed(paths))
        for system in order:
            shutil.rmtree(paths[system], ignore_errors=True)
            w, c = timed_with_cpu(spark, writers[system])
            wall[("write", system)].append(w)
            cpu[("write", system)].append(c)
            print(f"  run {i + 1}: {system:<15} write {w:6.2f}s {c:6.1f} CPU-s", flush=True)
        for system in order:
            w, c = timed_with_cpu(spark, lambda: scan(system))
            wall[("scan", system)].append(w)
            cpu[("scan", system)].append(c)
            print(f"  run {i + 1}: {system:<15} scan  {w:6.2f}s {c:6.1f} CPU-s", flush=True)

    def compare(op: str, baseline: str, candidate: str, description: str) -> Comparison:
        return Comparison(f"{op}: {candidate} vs {baseline}", rows, baseline, candidate, wall[(op, baseline)],
                          wall[(op, candidate)], goal=None, description=description)

    results = []
    for op in ("write", "scan"):
        results.append(compare(op, "spark_orc", "paimon_orc", "the same rows as ORC files: Spark's ORC data source "
                               "against a Paimon table with file.format = orc"))
        for f in ("orc", "avro"):
            results.append(compare(op, "paimon_parquet", f"paimon_{f}", f"a Paimon table in {f} against the same "
                                   "table in Parquet (the default)"))

    expected = checksum(df, columns)
    checks = []
    for system in paths:
        got = checksum(readers[system]().select(*columns), columns)
        checks.append(Check(f"{system} holds the source rows", str(got), str(expected), got == expected,
                            "count and xxhash64 of every column"))
    for f in ("parquet", "orc", "avro"):
        names = {p.suffix for p in Path(paths[f"paimon_{f}"]).rglob("data-*")}
        checks.append(Check(f"paimon_{f} wrote {f} data files", str(sorted(names)), f"['.{f}']", names == {f".{f}"}))
    cpu_per_row = {f"{op} {s}": statistics.median(cpu[(op, s)]) / rows * 1e6 for (op, s) in cpu}
    notes = {
        "rows": rows, "partitions": PARTITIONS, "repeats": repeats, "checks": checks,
        "cpu_microseconds_per_row": cpu_per_row,
        "cpu_seconds": {f"{op} {s}": v for (op, s), v in cpu.items()},
        "bytes_on_disk": {s: dir_bytes(Path(p)) for s, p in paths.items()},
        "codecs": "zstd in every Paimon table (file.compression default); Spark's ORC default (snappy in 4.x)",
    }
    df.unpersist()
    return results, notes
