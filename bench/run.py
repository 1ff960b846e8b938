"""paimon-spark benchmarks: `make bench`, or from the repository root

    .venv/bin/python bench/run.py [--quick | --rows N] [--repeats 3] [--workload append_scan]

Each workload is a module beside this file with NAME, TITLE and run(spark, rows, work, repeats)
returning (list of harness.Comparison, dict of notes); add a module and list it in WORKLOADS. Goals
that are not throughput ratios go in the notes under "checks", as a list of harness.Check; a figure of
the workload's own, drawn instead of the bars, under "plot", as a function of the path to draw into.
Results go to bench/results/<NAME>.{md,json,png}; table data lives in bench/work/ (git-ignored)
and is deleted afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))  # the workload modules import harness as a sibling module

import append_scan  # noqa: E402
import bucketed_join  # noqa: E402
import catalogs  # noqa: E402
import changelog  # noqa: E402
import cross_partition  # noqa: E402
import deletion_vectors  # noqa: E402
import dml  # noqa: E402
import file_formats  # noqa: E402
import harness  # noqa: E402
import iceberg_metadata  # noqa: E402
import metadata_scaling  # noqa: E402
import object_store  # noqa: E402
import python_api  # noqa: E402
import read_anchor  # noqa: E402
import scan_packing  # noqa: E402
import storage  # noqa: E402
import upsert_ingest  # noqa: E402

WORKLOADS = {module.NAME: module for module in (append_scan, upsert_ingest, metadata_scaling, changelog, dml, python_api,
                                                    scan_packing, object_store, catalogs, file_formats,
                                                    deletion_vectors, bucketed_join, cross_partition, iceberg_metadata,
                                                    storage, read_anchor)}
DEFAULT_ROWS, QUICK_ROWS = 10_000_000, 1_000_000


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"rows per table (default {DEFAULT_ROWS:,})")
    size.add_argument("--quick", action="store_true", help=f"a smoke run of {QUICK_ROWS:,} rows")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement; the median is reported")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), action="append",
                        help="run only this workload (repeatable; default: all)")
    parser.add_argument("--driver-memory", default="6g", help="driver heap; local mode runs everything in it")
    parser.add_argument("--results", type=Path, default=BENCH / "results", help="where reports are written")
    return parser.parse_args(argv)


def start_spark(driver_memory: str, java_options: str = "", conf: dict[str, str] | None = None):
    from pyspark.sql import SparkSession

    from paimon_spark import configure_spark_with_paimon

    harness.GC_LOGS.mkdir(exist_ok=True)  # the JVM refuses to start if it cannot open its GC log
    builder = (SparkSession.builder.master("local[2]").appName("paimon-spark-bench")
               # The heap size only takes effect when set before the JVM starts, i.e. here.
               .config("spark.driver.memory", driver_memory)
               # A heap fixed at full size and touched from the start (harness.PRETOUCH): a growing heap,
               # or one whose pages are first touched in the timed runs, makes early runs slower.
               # Paimon's Java writer gets the same heap and GC log (java_writer.java_ingest).
               .config("spark.driver.extraJavaOptions",
                       f"-Xms{driver_memory} {harness.PRETOUCH} -Xlog:gc:file={harness.GC_LOGS / 'spark_gc.log'} "
                       f"{java_options}".strip())
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.log.level", "ERROR"))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    # With S3A, the GCS connector and ABFS (resolved once), for the object-store and storage workloads.
    spark = configure_spark_with_paimon(builder, warehouse=str(BENCH / "work" / "warehouse"), s3=True, gcs=True,
                                        azure=True).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    rows = QUICK_ROWS if args.quick else args.rows
    work = BENCH / "work"
    shutil.rmtree(work, ignore_errors=True)  # leftovers of an interrupted run would skew disk use
    work.mkdir(parents=True)
    spark = start_spark(args.driver_memory)
    failed = False
    try:
        for name in args.workload or sorted(WORKLOADS):
            module = WORKLOADS[name]
            print(f"== {module.TITLE} ({rows:,} rows, {args.repeats} runs)", flush=True)
            started = time.perf_counter()
            results, notes = module.run(spark, rows, work / name, args.repeats)
            checks, draw = notes.pop("checks", []), notes.pop("plot", None)
            info = harness.machine_info(spark, {**notes, "wall_clock_s": round(time.perf_counter() - started, 1)})
            for path in harness.write_results(args.results, name, module.TITLE, results, info, checks, draw):
                print(f"   wrote {path.relative_to(BENCH.parent) if path.is_relative_to(BENCH.parent) else path}")
            for r in results:
                failed |= not r.passed
                print(f"   {r.workload:<13} {r.baseline} {r.rows_per_s(r.baseline_seconds):>12,.0f} rows/s   "
                      f"{r.candidate} {r.rows_per_s(r.candidate_seconds):>12,.0f} rows/s   "
                      f"ratio {r.ratio:.2f}x (goal {r.goal_text}) {r.result_text}")
            for c in checks:
                failed |= not c.passed
                print(f"   {c.name}: {c.measured} (goal {c.goal}) {'pass' if c.passed else 'FAIL'}")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    # A missed goal is a finding to report, not a crash: exit 0 so `make bench` always leaves results.
    print("all goals met" if not failed else "some goals missed (see bench/results/)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
