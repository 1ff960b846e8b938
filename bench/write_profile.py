"""Where the write path's CPU goes: `make profile`, or from the repository root

    .venv/bin/python bench/write_profile.py [--rows N] [--mode default|write-only|lookup] [--java]

The upsert-ingest workload of bench/changelog.py (a 2 M-row, 8-bucket, 10-column primary-key table,
compacted, then 10 batches of 200,000 upserts, half updates) is written by our engine while
async-profiler samples the CPU of the Spark JVM (local[2], bench/cpu_profile.py): only the timed
batches are sampled. The samples are summarized twice: by phase (the outermost frame of ours or
Spark's that says what the thread was doing: garbage collection and JIT compilation, shuffle, sort
and merge of the write buffer, level-0 write, compaction, lookup, changelog) and
by the work at the top of the stack (Parquet dictionary building, plain encoding, compression,
decoding, row conversion, sorting, hashing). Then where the batches' wall time went, from Spark's
event log (bench/task_timeline.py): both cores busy, one idle, no task running, against the Parquet
append of the same batches run after them. Writes bench/results/profile_<mode>.md and the raw
profile to bench/work/ (deleted by the next run). With --java, Apache Paimon's Java writer
(bench/java_writer.py) writes the same batches under the same sampler instead, into
profile_java_<mode>.md: the same rules sort its samples, Paimon's classes added to the phases.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import cpu_profile  # noqa: E402
import task_timeline  # noqa: E402
from harness import columns_sql, timed_with_cpu, warehouse_dir  # noqa: E402
from java_writer import java_classpath, java_ingest  # noqa: E402
from upsert_ingest import BATCHES, BUCKETS, Sizes, cached_batches, preload  # noqa: E402

# Threads that are not the writers': the sampler sees every thread's CPU.
RUNTIME = [
    ("garbage collection", ["G1", "GCTaskThread", "WorkerThread::run", "ConcurrentGCThread::run", "VMThread::"]),
    ("JIT compilation", ["CompileBroker::", "C2Compiler::", "Compilation::", "NMethodSweeper::"]),
]
# Phases: the first rule that some frame of the whole stack matches.
PHASES = RUNTIME + [
    ("lookup changelog", ["paimonspark.lsm.LookupChangelog", "paimonspark.lsm.LevelLookup"]),
    ("compaction", ["paimonspark.lsm.Compactor", "paimonspark.lsm.CompactSteps", "paimonspark.table.compact."]),
    ("write buffer: flush (merge, level-0 file)", ["paimonspark.table.write.PrimaryKeyWriter.flush"]),
    ("write buffer: insert and sort", ["paimonspark.table.write.PrimaryKeyWriter", "UnsafeExternalRowSorter",
                                       "UnsafeExternalSorter"]),
    ("shuffle write", ["org.apache.spark.shuffle.sort", "org.apache.spark.shuffle.ShuffleWriteProcessor"]),
    ("shuffle read", ["org.apache.spark.shuffle.BlockStoreShuffleReader", "ShuffleBlockFetcherIterator"]),
    ("commit and planning", ["paimonspark.table.write.TableCommit", "paimonspark.table.ManifestStore",
                             "paimonspark.table.scan."]),
    ("reading cached batches", ["org.apache.spark.sql.execution.columnar", "InMemoryRelation"]),
    # Apache Paimon's Java writer (--java).
    ("compaction", ["org.apache.paimon.mergetree.compact.", "org.apache.paimon.compact."]),
    ("write buffer: flush (merge, level-0 file)", ["org.apache.paimon.mergetree.MergeTreeWriter.flushWriteBuffer"]),
    ("write buffer: insert and sort", ["org.apache.paimon.mergetree.SortBufferWriteBuffer",
                                       "org.apache.paimon.sort."]),
    ("commit and planning", ["org.apache.paimon.operation.FileStoreCommitImpl"]),
]
# The Java writer's recording also samples the building of each batch's rows, which is not timed.
UNTIMED = ["paimonspark.bench.JavaIngest$PackedRows.<init>"]
HEAP = "6g"  # both JVMs' heap, fixed (bench/run.py's default driver heap)
# Work: the first rule (in this order) that some frame near the top of the stack matches.
TOP_FRAMES = 12
WORK = RUNTIME + [
    # The JVM zeroing each new array, and the kernel the pages under large ones (Parquet's column chunks).
    ("zeroing new arrays (JVM, kernel)", ["ObjArrayAllocator::initialize", "clear_page_erms"]),
    ("Parquet dictionary building", ["org.apache.parquet.column.values.dictionary", "it.unimi.dsi.fastutil"]),
    ("Parquet statistics", ["org.apache.parquet.column.statistics"]),
    ("compression (zstd)", ["zstd", "Zstd"]),
    # Reading only: Paimon's Java writer encodes through org.apache.parquet.hadoop's record writer.
    ("Parquet decoding", ["PlainValuesReader", "VectorizedRleValuesReader",
                          "VectorizedPlainValuesReader", "VectorizedColumnReader", "ParquetFileReader",
                          "ColumnChunkPageReadStore", "org.apache.paimon.format.parquet.reader",
                          "org.apache.paimon.data.columnar"]),
    # Our page encoder (flat rows): values, levels, dictionary ids and statistics a page at a time,
    # parquet-mr's RLE encoder under it included.
    ("page encoder (ours)", ["paimonspark.format.parquet.ColumnChunkWriter", "paimonspark.format.parquet.PrimitiveChunkWriter",
                             "paimonspark.format.parquet.BinaryChunkWriter", "paimonspark.format.parquet.BooleanChunkWriter",
                             "paimonspark.format.parquet.LongDictionary", "paimonspark.format.parquet.BinaryDictionary",
                             "paimonspark.format.parquet.ValueDictionary"]),
    ("Parquet plain/RLE encoding", ["org.apache.parquet.column.values", "org.apache.parquet.bytes",
                                    "org.apache.parquet.column.impl", "org.apache.parquet.io"]),
    ("writing rows into Parquet", ["org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport",
                                   "paimonspark.format.parquet.ParquetDataFile", "paimonspark.format.parquet.FlatRowWriter",
                                   "org.apache.paimon.format.parquet.writer", "MessageColumnIO"]),
    ("merge by key", ["paimonspark.lsm.SortedRunMerge", "paimonspark.lsm.KeyColumnMerge",
                      "paimonspark.lsm.DeduplicateEngine", "paimonspark.lsm.MergeEngine"]),
    ("gathering merged rows' columns", ["paimonspark.lsm.GatherVector"]),
    ("sorting", ["UnsafeInMemorySorter", "UnsafeExternalSorter", "UnsafeExternalRowSorter", "RadixSort", "TimSort",
                 "UnsafeSorterSpill", "PrefixComparator", "GeneratedClass$SpecificOrdering", "Ordering"]),
    ("reading the cached input (Spark's in-memory columns)", ["org.apache.spark.sql.execution.columnar"]),
    ("row conversion (projections, copies)", ["GeneratedClass$SpecificUnsafeProjection",
                                              "GeneratedClass$GeneratedIteratorForCodegenStage", "UnsafeRow",
                                              "ColumnarBatchRow", "ColumnVector",
                                              "ProjectingInternalRow", "JoinedRow", "Platform.copyMemory",
                                              "UnsafeWriter", "UnsafeRowWriter"]),
    ("hashing, bucketing", ["Murmur3", "XXH64", "BucketHash", "BinaryRowWriter"]),
    ("shuffle I/O and serialization", ["org.apache.spark.shuffle", "org.apache.spark.storage",
                                       "org.apache.spark.serializer", "net.jpountz", "com.github.luben"]),
    # The kernel's frames come first: its page cache is where written files go.
    ("file system", ["org.apache.hadoop.fs", "java.io.", "sun.nio", "java.nio", "vfs_write", "vfs_read",
                     "generic_perform_write", "filemap_", "ext4_"]),
    ("threads waking and waiting (futex)", ["futex_"]),
]


def first_rule(frames: list[str], rules: list) -> str:
    """The first rule (in list order) that some of these frames match."""
    return next((label for label, needles in rules if any(n in f for f in frames for n in needles)), "other")


def summarize(profile: Path, phase_rules: list) -> tuple[int, dict, dict, dict]:
    phases, work_kinds, self_time = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for frames, samples in cpu_profile.stacks(profile):
        if any(u in f for f in frames for u in UNTIMED):
            continue
        total += samples
        phases[first_rule(frames, phase_rules)] += samples
        work_kinds[first_rule(frames[:TOP_FRAMES], WORK)] += samples
        self_time[frames[0]] += samples
    return total, phases, work_kinds, self_time


def table(counter: collections.Counter, total: int, limit: int | None = None) -> list[str]:
    lines = ["| | samples | share |", "| --- | ---: | ---: |"]
    for name, n in counter.most_common(limit):
        lines.append(f"| {name} | {n:,} | {n / total:.1%} |")
    return lines


def report(out: Path, title: str, setup: str, profile: Path, phase_rules: list = PHASES,
           wall_lines: tuple[str, ...] = ()) -> None:
    total, phases, work_kinds, self_time = summarize(profile, phase_rules)
    out.write_text("\n".join([
        f"# {title}", "", f"{setup} {total:,} samples of async-profiler, one per {cpu_profile.INTERVAL} of CPU time "
        "on any thread, the garbage collector's and the JIT compilers' included, with the methods the JIT "
        f"inlined named. Made by `make profile` (bench/{Path(sys.argv[0]).name}).", "",
        "## By phase (outermost frame that says what the thread was doing)", "", *table(phases, total), "",
        "## By work (top of the stack)", "", *table(work_kinds, total), "",
        "## Hottest methods (self samples)", "", *table(self_time, total, 25), "", *wall_lines]))
    print(f"wrote {out}: {total:,} samples")


def profile_java(args: argparse.Namespace) -> int:
    """Paimon's Java writer on the same workload (JavaIngest), recorded over its batches."""
    if args.mode == "lookup" or args.java_options:
        raise SystemExit("--java profiles the default and write-only modes, without --java-options")
    work = BENCH / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    profile = work / f"profile_java_{args.mode}.collapsed"
    extra = [str(BATCHES), "write-only=true"] if args.mode == "write-only" else []
    classpath = java_classpath()
    agent = cpu_profile.library(classpath, work)
    result = java_ingest(classpath, work / "java", "none", args.rows, HEAP, extra,
                         cpu_profile.java_options(profile, agent))
    sizes = Sizes(args.rows)
    report(BENCH / "results" / f"{args.out or 'profile_java_' + args.mode.replace('-', '_')}.md",
           f"Where the CPU of Paimon's Java writer goes on the upsert ingest ({args.mode} options)",
           f"Apache Paimon 1.4.2's Java core (bench/java_writer.py) writing {BATCHES} batches of {sizes.batch:,} upserts "
           f"(half updates) into a {BUCKETS}-bucket, 10-column table preloaded with {sizes.preload:,} rows and compacted: "
           f"{result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} CPU-s of its JVM over the batches;", profile)
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="table rows after the batches (default 2 M)")
    parser.add_argument("--mode", choices=["default", "write-only", "lookup"], default="default")
    parser.add_argument("--java-options", default="", help="more options of the Spark JVM, e.g. "
                        "-Dpaimonspark.parquet.every-dictionary=true (Parquet builds every dictionary, as alone)")
    parser.add_argument("--out", help="the report's name (default profile_<mode>, profile_java_<mode>)")
    parser.add_argument("--java", action="store_true", help="profile Apache Paimon's Java writer instead")
    args = parser.parse_args(argv)
    if args.java:
        return profile_java(args)
    from run import start_spark

    work = BENCH / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    events = work / "events"
    classpath = java_classpath()
    agent = cpu_profile.library(classpath, work)
    spark = start_spark(HEAP, args.java_options,
                        {**task_timeline.conf(events), "spark.driver.extraClassPath": cpu_profile.jar(classpath)})
    try:
        sizes = Sizes(args.rows)
        batches = cached_batches(spark, sizes, BATCHES)
        schema = columns_sql(batches[0])
        options = {"default": "", "write-only": ", 'write-only' = 'true'",
                   "lookup": ", 'changelog-producer' = 'lookup'"}[args.mode]
        spark.sql(f"CREATE TABLE paimon.default.profiled ({schema}) TBLPROPERTIES ('primary-key' = 'id', "
                  f"'bucket' = '{BUCKETS}'{options})")
        preload(spark, sizes).writeTo("paimon.default.profiled").append()
        spark.sql("CALL paimon.sys.compact(table => 'default.profiled')").collect()
        # Untimed, unrecorded: five batches into an empty twin table, enough for a compaction, so the
        # JIT has compiled the write, flush and compaction paths (Java's writer warms up likewise).
        spark.sql(f"CREATE TABLE paimon.default.warmup ({schema}) TBLPROPERTIES ('primary-key' = 'id', "
                  f"'bucket' = '{BUCKETS}'{options})")
        for b in range(5):
            batches[b].writeTo("paimon.default.warmup").append()
        profile, profiler = work / f"profile_{args.mode}.collapsed", cpu_profile.Profiler(spark, agent)
        profiler.start()
        wall = cpu = 0.0
        spans: dict[str, list[tuple[float, float]]] = {"ours": [], "append": []}
        for b in range(BATCHES):
            write = batches[b].writeTo("paimon.default.profiled").append
            # No full collection before each batch, as the bench has: the sampler would count it.
            w, c = timed_with_cpu(spark, lambda: spanned(spans["ours"], write), collect_garbage=False)
            wall, cpu = wall + w, cpu + c
        profiler.stop(profile)
        # Unrecorded: the Parquet append of the same batches (the upsert bench's baseline), for its wall split.
        for b in range(BATCHES):
            spanned(spans["append"], lambda: batches[b].write.mode("append").parquet(str(work / "append")))
        assert warehouse_dir(spark).exists()
    finally:
        spark.stop()
    report(BENCH / "results" / f"{args.out or 'profile_' + args.mode.replace('-', '_')}.md",
           f"Where the CPU of the upsert ingest goes ({args.mode} options)",
           f"{BATCHES} batches of {sizes.batch:,} upserts (half updates) into a {BUCKETS}-bucket, 10-column table "
           f"preloaded with {sizes.preload:,} rows and compacted"
           f"{', JVM options ' + args.java_options if args.java_options else ''}: {wall:.1f} s wall, {cpu:.1f} CPU-s "
           f"of the Spark JVM (local[2]),", profile, wall_lines=wall_split(task_timeline.read(events), spans))
    return 0


def spanned(spans: list[tuple[float, float]], action) -> None:
    """Runs action(), noting its start and end (epoch seconds, as Spark's event log has them) in `spans`."""
    started = time.time()
    action()
    spans.append((started, time.time()))


def wall_split(timeline: task_timeline.Timeline, spans: dict[str, list[tuple[float, float]]]) -> list[str]:
    """The section on where the timed writes' wall time went, ours against the Parquet append's."""
    lines = ["## Where the wall time goes (Spark's event log)", "",
             "| | wall s | both cores busy | one core idle: write jobs | one core idle: compaction jobs "
             "| no task running | idle core-s |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, label in (("ours", "ours, the timed batches"), ("append", "Parquet append, same batches")):
        total, wall = task_timeline.WallSplit(), 0.0
        for start, end in spans[name]:
            total += timeline.split(start, end)
            wall += end - start
        lone = total.lone_by_job
        lines.append(f"| {label} | {wall:.2f} | {total.both:.2f} | {lone.get('write', 0.0):.2f} "
                     f"| {lone.get('compaction', 0.0):.2f} | {total.none:.2f} | {total.idle_core_seconds:.2f} |")
    lines += ["", "Seconds summed over the batches. One core idle: a stage's last task, or a job of one task (a "
              "compaction of one bucket), ran alone. No task running: the driver planned, committed or started "
              "the next job. Idle core-s = 2 x none + one: what the CPU bound of a ratio assumes away.", ""]
    return lines


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
