"""Structured Streaming over Paimon tables: the source (scan modes, which snapshots and files, admission control,
offsets that survive a failed batch, consumer-id and expiry) and the exactly-once sink (a micro-batch replayed after
the driver was killed between the table commit and Spark's checkpoint is not committed twice)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SUPPORT, rows, table_dir
from history_util import snapshot_ids, snapshot_json
from paimon_spark import VersionNotFoundError

WORKER = str(SUPPORT / "stream_worker.py")


class Batches:
    """Runs a streaming read to its end (Trigger.AvailableNow) and keeps each micro-batch's rows."""

    def __init__(self, spark, checkpoint: Path):
        self.spark, self.checkpoint = spark, checkpoint
        self.got: list[list[tuple]] = []
        self.fail_at: int | None = None

    def _collect(self, df, batch_id: int) -> None:
        if batch_id == self.fail_at:
            self.fail_at = None
            raise RuntimeError(f"failing micro-batch {batch_id} on purpose")
        self.got.append(sorted((tuple(r) for r in df.collect()), key=str))

    def run(self, reader, name: str) -> list[list[tuple]]:
        start = len(self.got)
        query = (reader.table(name).writeStream.foreachBatch(self._collect)
                 .option("checkpointLocation", str(self.checkpoint)).trigger(availableNow=True).start())
        query.awaitTermination()
        return self.got[start:]


def flat(batches: list[list[tuple]]) -> list[tuple]:
    return sorted((r for b in batches for r in b), key=str)


@pytest.fixture(scope="module")
def source(spark):
    """A primary-key table with the input producer: three commits of changes and a compaction between them."""
    spark.sql("CREATE TABLE paimon.default.src (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES "
              "('primary-key' = 'p,id', 'bucket' = '2', 'changelog-producer' = 'input')")
    spark.sql("INSERT INTO paimon.default.src VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
    spark.sql("INSERT INTO paimon.default.src VALUES (1, 'a2', 'x'), (4, 'd', 'y')")
    spark.sql("CALL paimon.sys.compact(table => 'default.src')")
    spark.sql("INSERT INTO paimon.default.src VALUES (5, 'e', 'x'), (6, 'f', 'y'), (7, 'g', 'y')")
    return "paimon.default.src"


def test_scan_modes_pick_where_a_stream_starts(spark, source, tmp_path, warehouse):
    assert [snapshot_json(warehouse, "src", i)["commitKind"] for i in (1, 2, 3, 4)] == \
        ["APPEND", "APPEND", "COMPACT", "APPEND"]
    state = [(1, "a2", "x"), (2, "b", "x"), (3, "c", "y"), (4, "d", "y"), (5, "e", "x"), (6, "f", "y"), (7, "g", "y")]
    c2 = [(1, "a2", "x"), (4, "d", "y")]
    c4 = [(5, "e", "x"), (6, "f", "y"), (7, "g", "y")]
    def stream(mode: dict, cp: str):
        reader = spark.readStream
        for k, v in mode.items():
            reader = reader.option(k, v)
        return flat(Batches(spark, tmp_path / cp).run(reader, source))
    assert stream({}, "default") == sorted(state, key=str)                       # latest-full
    assert stream({"scan.mode": "latest"}, "latest") == []
    assert stream({"scan.mode": "from-snapshot", "scan.snapshot-id": "2"}, "fs") == sorted(c2 + c4, key=str)
    assert stream({"scan.snapshot-id": "3"}, "fs3") == sorted(c4, key=str)       # the COMPACT snapshot has no changes
    full2 = [(1, "a2", "x"), (2, "b", "x"), (3, "c", "y"), (4, "d", "y")]
    assert stream({"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"}, "fsf") == sorted(full2 + c4, key=str)
    millis = snapshot_json(warehouse, "src", 2)["timeMillis"]
    assert stream({"scan.mode": "from-timestamp", "scan.timestamp-millis": str(millis)}, "ft") == sorted(c4, key=str)
    # compacted-full: the state of the last compaction (snapshot 3), then what came after it.
    assert stream({"scan.mode": "compacted-full"}, "cf") == sorted(full2 + c4, key=str)


def test_audit_log_and_path_streams_carry_row_kinds(spark, source, tmp_path, warehouse):
    got = flat(Batches(spark, tmp_path / "audit").run(spark.readStream.option("scan.snapshot-id", "2"),
                                                       "paimon.default.`src$audit_log`"))
    assert got == sorted([("+I", 1, "a2", "x"), ("+I", 4, "d", "y"), ("+I", 5, "e", "x"), ("+I", 6, "f", "y"),
                          ("+I", 7, "g", "y")], key=str)
    path = str(table_dir(warehouse, "src"))
    df = (spark.readStream.format("paimon").option("read.changelog", "true").option("scan.snapshot-id", "4")
          .load(path))
    assert df.columns == ["rowkind", "id", "v", "p"]
    out = []
    q = (df.writeStream.foreachBatch(lambda d, _: out.extend(tuple(r) for r in d.collect()))
         .option("checkpointLocation", str(tmp_path / "path")).trigger(availableNow=True).start())
    q.awaitTermination()
    assert sorted(out, key=str) == sorted([("+I", 5, "e", "x"), ("+I", 6, "f", "y"), ("+I", 7, "g", "y")], key=str)


def test_admission_control_and_a_failed_batch_resume_exactly(spark, source, tmp_path):
    b = Batches(spark, tmp_path / "limits")
    reader = spark.readStream.option("scan.snapshot-id", "2").option("read.stream.maxFilesPerTrigger", "1")
    batches = b.run(reader, source)
    # Snapshot 2 wrote one changelog file per bucket it touched, snapshot 4 one per (partition, bucket).
    assert len(batches) >= 3 and all(len(x) >= 1 for x in batches)
    expected = flat(batches)
    assert expected == sorted([(1, "a2", "x"), (4, "d", "y"), (5, "e", "x"), (6, "f", "y"), (7, "g", "y")], key=str)
    # The same stream from scratch, failing its second micro-batch once: the rerun picks the batch up again,
    # from the same offsets, and nothing is lost or read twice.
    again = Batches(spark, tmp_path / "limits-fail")
    again.fail_at = 1
    with pytest.raises(Exception, match="on purpose"):
        again.run(spark.readStream.option("scan.snapshot-id", "2").option("read.stream.maxFilesPerTrigger", "1"),
                  source)
    again.run(spark.readStream.option("scan.snapshot-id", "2").option("read.stream.maxFilesPerTrigger", "1"), source)
    assert flat(again.got) == expected and len(again.got) == len(batches)
    # Trigger.Once reads everything there is in one micro-batch, whatever the limits.
    once = []
    (spark.readStream.option("scan.snapshot-id", "2").option("read.stream.maxFilesPerTrigger", "1").table(source)
     .writeStream.foreachBatch(lambda df, _: once.append(sorted(tuple(r) for r in df.collect())))
     .option("checkpointLocation", str(tmp_path / "once")).trigger(once=True).start().awaitTermination())
    assert len(once) == 1 and sorted(once[0], key=str) == expected
    rows_limited = Batches(spark, tmp_path / "rows").run(
        spark.readStream.option("scan.snapshot-id", "4").option("read.stream.maxRowsPerTrigger", "1"), source)
    assert flat(rows_limited) == sorted([(5, "e", "x"), (6, "f", "y"), (7, "g", "y")], key=str)
    assert len(rows_limited) >= 2


def test_streaming_read_overwrite_reads_what_an_overwrite_changed(spark, tmp_path):
    spark.sql("CREATE TABLE paimon.default.ow_pk (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES "
              "('primary-key' = 'p,id', 'bucket' = '1')")
    spark.sql("INSERT INTO paimon.default.ow_pk VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
    spark.sql("INSERT OVERWRITE paimon.default.ow_pk PARTITION (p = 'x') VALUES (2, 'b2'), (4, 'd')")
    spark.sql("CREATE TABLE paimon.default.ow_append (id INT, v STRING)")
    spark.sql("INSERT INTO paimon.default.ow_append VALUES (1, 'a')")
    spark.sql("INSERT OVERWRITE paimon.default.ow_append VALUES (9, 'z')")
    def stream(name: str, cp: str, **options: str):
        reader = spark.readStream.option("scan.snapshot-id", "2")
        for k, v in options.items():
            reader = reader.option(k, v)
        return flat(Batches(spark, tmp_path / cp).run(reader, name))
    # Without the option an overwrite is no change for a stream, as in Paimon.
    assert stream("paimon.default.`ow_pk$audit_log`", "pk-skip") == []
    # With it, a primary-key table's overwrite is compared by key with what it replaced: the untouched
    # partition and an unchanged key are no change.
    assert stream("paimon.default.`ow_pk$audit_log`", "pk", **{"streaming-read-overwrite": "true"}) == sorted(
        [("-D", 1, "a", "x"), ("-U", 2, "b", "x"), ("+U", 2, "b2", "x"), ("+I", 4, "d", "x")], key=str)
    assert stream("paimon.default.ow_pk", "pk-rows", **{"streaming-read-overwrite": "true"}) == \
        [(2, "b2", "x"), (4, "d", "x")]
    # An append table's overwrite streams its new rows.
    assert stream("paimon.default.ow_append", "append") == []
    assert stream("paimon.default.ow_append", "append-ow", **{"streaming-read-overwrite": "true"}) == [(9, "z")]


def test_a_stream_reads_added_columns_and_stops_at_a_renamed_one(spark, oracle, tmp_path):
    from pypaimon.schema.data_types import AtomicType
    from pypaimon.schema.schema_change import SchemaChange

    name = "paimon.default.evolving"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a')")
    oracle.alter_table("default.evolving", [SchemaChange.add_column("w", AtomicType("INT"))])
    spark.sql(f"INSERT INTO {name} VALUES (2, 'b', 5)")
    # A column added later reads as null from the snapshot before it.
    got = flat(Batches(spark, tmp_path / "added").run(spark.readStream.option("scan.snapshot-id", "1"), name))
    assert got == sorted([(1, "a", None), (2, "b", 5)], key=str)
    # A running stream that meets a snapshot written after its column was renamed stops, naming both names.
    seen: list[tuple] = []
    query = (spark.readStream.table(name).writeStream
             .foreachBatch(lambda df, _: seen.extend(tuple(r) for r in df.collect()))
             .option("checkpointLocation", str(tmp_path / "running")).trigger(processingTime="200 milliseconds").start())
    deadline = time.time() + 60
    while len(seen) < 2 and time.time() < deadline:
        time.sleep(0.2)
    assert sorted(seen, key=str) == sorted([(1, "a", None), (2, "b", 5)], key=str)
    oracle.alter_table("default.evolving", [SchemaChange.rename_column("v", "v2")])
    spark.sql(f"INSERT INTO {name} VALUES (3, 'c', 6)")
    with pytest.raises(Exception, match=r"snapshot 3, written with schema 2, names it 'v2'; this stream reads "
                                        r"column 'v' as schema 1 defines it"):
        query.awaitTermination(60)
    assert not query.isActive and len(seen) == 2


def test_consumer_id_keeps_unread_snapshots_from_expiry(spark, tmp_path, warehouse):
    # An append table that never compacts its few files: every insert is one snapshot.
    spark.sql("CREATE TABLE paimon.default.cons (id INT, v STRING) TBLPROPERTIES ('snapshot.num-retained.min' = '1', "
              "'snapshot.num-retained.max' = '1', 'compaction.min.file-num' = '100')")
    spark.sql("INSERT INTO paimon.default.cons VALUES (1, 'a')")
    b = Batches(spark, tmp_path / "cons")
    reader = lambda: spark.readStream.option("consumer-id", "job1")  # noqa: E731
    assert flat(b.run(reader(), "paimon.default.cons")) == [(1, "a")]
    consumer = table_dir(warehouse, "cons") / "consumer" / "consumer-job1"
    assert json.loads(consumer.read_text()) == {"nextSnapshot": 2}
    for i in range(2, 5):
        spark.sql(f"INSERT INTO paimon.default.cons VALUES ({i}, 'v{i}')")
    # Retention would keep only the latest snapshot; the consumer keeps snapshot 2 on.
    assert snapshot_ids(warehouse, "cons") == [2, 3, 4]
    assert flat(b.run(reader(), "paimon.default.cons")) == [(2, "v2"), (3, "v3"), (4, "v4")]
    assert json.loads(consumer.read_text()) == {"nextSnapshot": 5}
    spark.sql("INSERT INTO paimon.default.cons VALUES (5, 'v5')")
    assert snapshot_ids(warehouse, "cons") == [5]
    # A stream whose checkpoint points at an expired snapshot fails, naming what is left.
    stale = Batches(spark, tmp_path / "stale")
    stale.run(spark.readStream.option("scan.mode", "latest"), "paimon.default.cons")
    # The job is gone: after consumer.expiration-time without progress, the next commit drops its consumer.
    spark.sql("ALTER TABLE paimon.default.cons SET TBLPROPERTIES ('consumer.expiration-time' = '1 s')")
    time.sleep(1.5)
    for i in range(6, 9):
        spark.sql(f"INSERT INTO paimon.default.cons VALUES ({i}, 'v{i}')")
    assert not consumer.exists()
    with pytest.raises(Exception, match=r"snapshot 6, the next one this stream reads, has expired.*earliest retained "
                                        r"snapshot is 8"):
        stale.run(spark.readStream, "paimon.default.cons")
    with pytest.raises(VersionNotFoundError, match=r"snapshot 2, the next one this stream reads, has expired \(the "
                                                   r"earliest retained snapshot is 8\)"):
        Batches(spark, tmp_path / "fs2").run(spark.readStream.option("scan.snapshot-id", "2"), "paimon.default.cons")


def test_sink_appends_upserts_and_overwrites_in_complete_mode(spark, source, tmp_path, warehouse):
    spark.sql("CREATE TABLE paimon.default.sink_pk (id INT, v STRING, p STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'bucket' = '1')")
    def copy(cp: str, target: str):
        (spark.readStream.option("read.stream.maxFilesPerTrigger", "2").table(source).writeStream
         .option("checkpointLocation", str(tmp_path / cp)).trigger(availableNow=True).toTable(target)).awaitTermination()
    copy("sink_pk", "paimon.default.sink_pk")
    assert rows(spark.table("paimon.default.sink_pk")) == rows(spark.table(source))
    ids = snapshot_ids(warehouse, "sink_pk")
    users = {snapshot_json(warehouse, "sink_pk", i)["commitUser"] for i in ids}
    identifiers = [snapshot_json(warehouse, "sink_pk", i)["commitIdentifier"] for i in ids
                   if snapshot_json(warehouse, "sink_pk", i)["commitKind"] == "APPEND"]
    assert len(users - {u for u in users if not u.startswith("spark-streaming-")}) == 1
    assert identifiers == sorted(identifiers) and len(identifiers) >= 2
    counts = spark.readStream.table(source).groupBy("p").count()
    spark.sql("CREATE TABLE paimon.default.sink_complete (p STRING, count BIGINT)")
    (counts.writeStream.outputMode("complete").option("checkpointLocation", str(tmp_path / "complete"))
     .trigger(availableNow=True).toTable("paimon.default.sink_complete")).awaitTermination()
    assert rows(spark.table("paimon.default.sink_complete")) == [("x", 3), ("y", 4)]
    assert snapshot_json(warehouse, "sink_complete", snapshot_ids(warehouse, "sink_complete")[-1])["commitKind"] == \
        "OVERWRITE"
    with pytest.raises(Exception, match="does not support Update mode"):
        (counts.writeStream.outputMode("update").option("checkpointLocation", str(tmp_path / "update"))
         .trigger(availableNow=True).toTable("paimon.default.sink_complete")).awaitTermination()
    assert rows(spark.table("paimon.default.sink_complete")) == [("x", 3), ("y", 4)]


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to hold the driver at the right moment")
def test_a_batch_replayed_after_the_driver_died_is_not_committed_twice(spark, source, tmp_path, warehouse):
    spark.sql("CREATE TABLE paimon.default.sink_once (id INT, v STRING, p STRING)")
    checkpoint = tmp_path / "once"
    args = [sys.executable, WORKER, str(warehouse), source, "paimon.default.sink_once", str(checkpoint), "1"]
    # Commits publish snapshot files with link(2); strace holds the worker in the first one's return for a minute,
    # once the snapshot is on disk, and the worker is killed there: after the sink committed micro-batch 0 to the
    # table, before Spark wrote it to the checkpoint's commit log.
    held = ["strace", "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=link,linkat",
            "-e", "inject=link,linkat:delay_exit=60000000"]
    worker = subprocess.Popen(held + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    first_snapshot = table_dir(warehouse, "sink_once") / "snapshot" / "snapshot-1"
    deadline = time.time() + 300
    while not first_snapshot.exists() and worker.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=60)
    assert first_snapshot.exists(), "the worker never committed"
    assert (checkpoint / "offsets" / "0").exists() and not (checkpoint / "commits" / "0").exists()
    assert snapshot_json(warehouse, "sink_once", 1)["commitIdentifier"] == 0
    second = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0 and "finished" in second.stdout, second.stdout[-3000:]
    committed = [snapshot_json(warehouse, "sink_once", i)["commitIdentifier"] for i in snapshot_ids(warehouse, "sink_once")
                 if snapshot_json(warehouse, "sink_once", i)["commitKind"] != "COMPACT"]
    assert committed.count(0) == 1 and committed == sorted(committed) and len(committed) >= 2
    # An append table keeps every row written: a batch committed twice would show twice.
    assert rows(spark.table("paimon.default.sink_once")) == rows(spark.table(source))


def test_a_pipeline_killed_twice_keeps_an_exact_aggregate(spark, tmp_path, warehouse):
    """Orders with a lookup changelog; a separate process streams the changelog into revenue per customer (sums that
    retractions subtract from) and is killed twice while orders keep changing; revenue ends equal to the batch sum."""
    spark.sql("CREATE TABLE paimon.default.orders (order_id INT, customer STRING, amount INT, op STRING) TBLPROPERTIES "
              "('primary-key' = 'order_id', 'bucket' = '2', 'changelog-producer' = 'lookup', 'rowkind.field' = 'op')")
    spark.sql("CREATE TABLE paimon.default.revenue (customer STRING, amount BIGINT, rowkind STRING) TBLPROPERTIES "
              "('primary-key' = 'customer', 'bucket' = '1', 'merge-engine' = 'aggregation', "
              "'fields.amount.aggregate-function' = 'sum', 'rowkind.field' = 'rowkind')")
    checkpoint = str(tmp_path / "pipeline")
    worker_script = str(SUPPORT / "pipeline_worker.py")

    def start(mode: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, worker_script, str(warehouse), checkpoint, mode],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def revenue_snapshots() -> int:
        return len(snapshot_ids(warehouse, "revenue"))

    rng = __import__("random").Random(13)
    worker = start("follow")
    for write in range(9):
        values = []
        for order in rng.sample(range(30), 6):
            if rng.random() < 0.2:
                values.append(f"({order}, 'c0', 0, '-D')")
            else:
                values.append(f"({order}, 'c{rng.randint(0, 4)}', {rng.randint(1, 100)}, '+I')")
        spark.sql(f"INSERT INTO paimon.default.orders VALUES {', '.join(values)}")
        if write in (3, 6):
            # Killed once it has committed something since it started: mid-stream, JVM and all.
            seen = revenue_snapshots()
            deadline = time.time() + 120
            while revenue_snapshots() == seen and worker.poll() is None and time.time() < deadline:
                time.sleep(0.2)
            time.sleep(rng.random())
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=60)
            worker = start("follow")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=60)
    drained = start("drain")
    out = drained.communicate(timeout=600)[0]
    assert drained.returncode == 0 and "finished" in out, out[-3000:]
    expected = rows(spark.sql("SELECT customer, sum(amount) FROM paimon.default.orders GROUP BY customer"))
    got = [(c, a) for c, a in rows(spark.sql("SELECT customer, amount FROM paimon.default.revenue")) if a != 0]
    assert got == [(c, a) for c, a in expected if a != 0]
    # Each of the three runs killed committed at least once, and no micro-batch was committed twice.
    identifiers = [snapshot_json(warehouse, "revenue", i)["commitIdentifier"] for i in snapshot_ids(warehouse, "revenue")
                   if snapshot_json(warehouse, "revenue", i)["commitKind"] != "COMPACT"]
    assert len(identifiers) >= 3 and identifiers == sorted(set(identifiers))
