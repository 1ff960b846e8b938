"""Where the read path's CPU goes: `make profile`, or from the repository root

    .venv/bin/python bench/read_profile.py [--rows N] [--scans K]

The merge-on-read case of bench/upsert_ingest.py: a write-only, 8-bucket, 10-column primary-key
table holding a compacted preload and 4 upsert batches (5 sorted runs per bucket whose key ranges
all overlap), and a fully compacted copy of it. async-profiler samples the CPU of the Spark JVM
(local[2], bench/cpu_profile.py) over K full scans (noop sink) of each table, one profile per table, summarized as the write
profile is (bench/write_profile.py): by phase (merge, plain scan, Spark's conversion to rows) and by
the work at the top of the stack. Beside each, the CPU of the same scans unrecorded, and of Spark's
own Parquet reader over the table's live data files and the columns ours reads of them (a merge also
reads each row's kind; its files' sequence ranges are disjoint, so their sequence numbers stand in for
the column, which is not read), merging nothing. Writes bench/results/profile_read_mor.md and
profile_read_compacted.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import cpu_profile  # noqa: E402
from harness import columns_sql, copy_table, timed_with_cpu  # noqa: E402
from java_writer import java_classpath  # noqa: E402
from read_anchor import live_files  # noqa: E402
from upsert_ingest import BUCKETS, MOR_RUNS, Sizes, batch, preload  # noqa: E402
import write_profile  # noqa: E402

# The read path's phases, ahead of the write profile's (whose compaction rules would claim a merge).
# Decoding first: a merge decodes its runs' next batches inside its own frames.
READ_PHASES = write_profile.RUNTIME + [
    ("Parquet decoding (row groups read, pages decompressed and decoded)",
     ["VectorizedParquetRecordReader", "VectorizedColumnReader", "ParquetFileReader"]),
    ("opening files (footers, readers)", ["MergeReaderFactory$MergedSections.nextSection", "SparkFileReader.open",
                                          "ParquetPartitionReaderFactory.buildColumnarReader"]),
    ("merge by key (KeyColumnMerge, SortedRunMerge)", ["paimonspark.lsm.KeyColumnMerge", "paimonspark.lsm.SortedRunMerge"]),
    ("copying merged rows' columns (GatherVector.copyTo)", ["paimonspark.lsm.GatherVector.copyTo"]),
    ("walking runs' batches (BatchRows)", ["paimonspark.spark.read.BatchRows"]),
    ("conversion to rows and the sink", ["ColumnarToRow", "GeneratedClass", "noop", "WriteToDataSourceV2"]),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000,
                        help="rows ingested by upsert_ingest's batches (default 10 M: a 7 M-row MOR table)")
    parser.add_argument("--scans", type=int, default=5, help="recorded scans of each table (default 5)")
    args = parser.parse_args(argv)
    from run import start_spark

    work = BENCH / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    classpath = java_classpath()
    agent = cpu_profile.library(classpath, work)
    spark = start_spark(write_profile.HEAP, conf={"spark.driver.extraClassPath": cpu_profile.jar(classpath)})
    sizes = Sizes(args.rows)
    try:
        first = batch(spark, sizes, 0)
        schema = columns_sql(first)
        spark.sql(f"CREATE TABLE paimon.default.mor ({schema}) TBLPROPERTIES ('primary-key' = 'id', "
                  f"'bucket' = '{BUCKETS}', 'write-only' = 'true')")
        preload(spark, sizes).writeTo("paimon.default.mor").append()
        spark.sql("CALL paimon.sys.compact(table => 'default.mor')").collect()
        for b in range(MOR_RUNS - 1):
            batch(spark, sizes, b).writeTo("paimon.default.mor").append()
        copy_table(spark, "mor", "mor_compacted")
        spark.sql("CALL paimon.sys.compact(table => 'default.mor_compacted')").collect()

        def scan(table: str) -> None:
            spark.table(f"paimon.default.{table}").write.format("noop").mode("overwrite").save()

        columns = spark.table("paimon.default.mor").columns
        # Our compacted scan reads each file as it is; the merge also reads kinds (SequenceRanges: the
        # runs' sequence ranges are disjoint, so each file's sequence number stands in for the column).
        decoded = {"mor": ["_VALUE_KIND", *columns], "mor_compacted": columns}
        files = {table: live_files(spark, table) for table in decoded}

        def parquet(table: str) -> None:
            spark.read.parquet(*files[table]).select(*decoded[table]).write.format("noop").mode("overwrite").save()

        for table in ("mor", "mor_compacted"):
            scan(table)  # unrecorded: class loading and JIT of both read paths
            parquet(table)
        # Unprofiled, alternating: the CPU of the scans without the sampler's own.
        unrecorded = {table: {"ours": [], "spark": []} for table in decoded}
        for i in range(args.scans):
            for table in (("mor", "mor_compacted") if i % 2 == 0 else ("mor_compacted", "mor")):
                unrecorded[table]["ours"].append(timed_with_cpu(spark, lambda: scan(table))[1])
                unrecorded[table]["spark"].append(timed_with_cpu(spark, lambda: parquet(table))[1])
        median = {table: {k: statistics.median(v) for k, v in sides.items()} for table, sides in unrecorded.items()}
        stored = {table: spark.read.parquet(*files[table]).count() for table in decoded}
        profiler = cpu_profile.Profiler(spark, agent)
        rows = sizes.keys_before(MOR_RUNS - 1)
        for table, label in (("mor", f"{MOR_RUNS} overlapping sorted runs per bucket"),
                             ("mor_compacted", "the same rows compacted (one run per bucket)")):
            profile = work / f"profile_read_{table}.collapsed"
            profiler.start()
            wall = cpu = 0.0
            for _ in range(args.scans):
                w, c = timed_with_cpu(spark, lambda: scan(table), collect_garbage=False)
                wall, cpu = wall + w, cpu + c
            profiler.stop(profile)
            out = BENCH / "results" / f"profile_read_{table.replace('mor_', '')}.md"
            write_profile.report(
                out, f"Where the CPU of a full scan goes: {label}",
                f"{args.scans} full scans (noop sink) of a {BUCKETS}-bucket, 10-column primary-key table of {rows:,} "
                f"rows, {label}: {wall / args.scans:.2f} s wall and {cpu / args.scans:.2f} CPU-s of the Spark JVM "
                f"(local[2]) per profiled scan. Unprofiled, alternating with the other table's scans: median "
                f"{median[table]['ours']:.2f} CPU-s per scan, {median[table]['ours'] / rows * 1e6:.3f} CPU-µs per row; "
                f"Spark's own Parquet reader over the same {len(files[table])} live data files and the "
                f"{len(decoded[table])} columns ours reads of them (noop sink, merging nothing, so every one of their "
                f"{stored[table]:,} stored rows is turned into a Spark row, where ours turns only the newest versions) "
                f"median {median[table]['spark']:.2f} CPU-s.", profile, READ_PHASES + write_profile.PHASES)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
