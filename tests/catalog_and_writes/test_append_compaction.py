"""Small-file compaction of append tables: by CALL, from Python and inline after writes; read back here
and by pypaimon, whose plan shows the files left."""


import pytest

from conftest import commit_kinds, oracle_rows, rows, table_dir
from paimon_spark import InvalidOptionError, PaimonTable


def live_files(oracle, name, snapshot=None):
    """pypaimon's plan of the table (or of one snapshot): {partition values: [files in plan order]}."""
    table = oracle.get_table(f"default.{name}")
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    out = {}
    for split in table.new_read_builder().new_scan().plan().splits():
        out.setdefault(tuple(split.partition.values), []).extend(split.files)
    return out


def file_counts(oracle, name):
    return {p: len(fs) for p, fs in live_files(oracle, name).items()}


def ordered_rows(oracle, name, snapshot=None):
    """The rows as pypaimon reads them, in its order (files in plan order, rows in file order)."""
    table = oracle.get_table(f"default.{name}")
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    builder = table.new_read_builder()
    return [tuple(r.values()) for r in builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()]


def create(spark, name, options="", partitioned=False):
    partition = "PARTITIONED BY (dt)" if partitioned else ""
    props = f"TBLPROPERTIES ({options.lstrip(', ')})" if options else ""
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING, dt STRING) {partition} {props}")


def append(spark, name, start, end, dt="a", v="concat('v', id)"):
    """One INSERT of ids [start, end), written by one task so that it is one file per partition."""
    spark.range(start, end, 1, 1).selectExpr("CAST(id AS INT) id", f"{v} v", f"'{dt}' dt").writeTo(
        f"paimon.default.{name}").append()


def test_small_appends_are_rewritten_into_one_file_by_call(spark, oracle, warehouse):
    create(spark, "bycall", "'write-only' = 'true'")
    for i in range(6):
        append(spark, "bycall", i * 10, i * 10 + 10)
    before = ordered_rows(oracle, "bycall")
    assert file_counts(oracle, "bycall") == {(): 6} and len(before) == 60
    assert spark.sql("CALL paimon.sys.compact(table => 'default.bycall')").collect()[0]["result"] is True
    assert commit_kinds(warehouse, "bycall") == ["APPEND"] * 6 + ["COMPACT"]
    (compacted,) = live_files(oracle, "bycall")[()]
    # Paimon's marks of a rewritten append file: level 0, file source COMPACT (1), sequence numbers
    # counted on from the first rewritten file's.
    assert (compacted.level, compacted.file_source, compacted.row_count) == (0, 1, 60)
    assert (compacted.min_sequence_number, compacted.max_sequence_number) == (0, 59)
    # Same rows in the same order, for pypaimon and for us.
    assert ordered_rows(oracle, "bycall") == before
    assert rows(spark.table("paimon.default.bycall")) == sorted(before)
    # Nothing small is left to compact: a second call commits nothing.
    assert spark.sql("CALL paimon.sys.compact(table => 'default.bycall')").collect()[0]["result"] is False


def test_force_rewrite_all_files_rewrites_a_compacted_table(spark, oracle, warehouse):
    """`compaction.force-rewrite-all-files` in a full compaction rewrites files nothing else would pick (how files an
    earlier version wrote in another encoding are repaired)."""
    create(spark, "forced", "'write-only' = 'true'")
    for i in range(6):
        append(spark, "forced", i * 10, i * 10 + 10)
    spark.sql("CALL paimon.sys.compact(table => 'default.forced')")
    (compacted,) = live_files(oracle, "forced")[()]
    before = ordered_rows(oracle, "forced")
    assert spark.sql("CALL paimon.sys.compact(table => 'default.forced')").collect()[0]["result"] is False
    assert spark.sql("CALL paimon.sys.compact(table => 'default.forced', "
                     "options => 'compaction.force-rewrite-all-files=true')").collect()[0]["result"] is True
    (rewritten,) = live_files(oracle, "forced")[()]
    assert rewritten.file_name != compacted.file_name and rewritten.row_count == 60
    assert ordered_rows(oracle, "forced") == before
    assert commit_kinds(warehouse, "forced")[-2:] == ["COMPACT", "COMPACT"]


def test_compaction_from_python_rolls_files_at_the_target_size(spark, oracle):
    # No open-file cost, so that only the sizes decide: five files of ~25 kb are small against 64 kb,
    # together they make two (a file is checked against the target every 1024 rows).
    create(spark, "rolled", "'write-only' = 'true', 'target-file-size' = '64 kb', "
                            "'source.split.open-file-cost' = '0', 'file.compression' = 'none'")
    for i in range(5):
        append(spark, "rolled", i * 300, i * 300 + 300, v="sha2(CAST(id AS STRING), 256)")
    before = ordered_rows(oracle, "rolled")
    assert PaimonTable.for_name(spark, "paimon.default.rolled").compact() is True
    after = live_files(oracle, "rolled")[()]
    assert len(after) >= 2 and all(f.file_source == 1 for f in after)
    assert sum(f.row_count for f in after) == 1500
    # Sequence numbers go on from one rolled file to the next.
    assert [f.min_sequence_number for f in after] == [0] + [f.max_sequence_number + 1 for f in after[:-1]]
    assert ordered_rows(oracle, "rolled") == before


def test_partitions_filter_compacts_only_the_chosen_partitions(spark, oracle, warehouse):
    create(spark, "parts", "'write-only' = 'true'", partitioned=True)
    for i in range(5):
        for dt in ("a", "b", "c"):
            append(spark, "parts", i * 10, i * 10 + 10, dt=dt)
    expected = rows(spark.table("paimon.default.parts"))
    assert spark.sql("CALL paimon.sys.compact(table => 'default.parts', partitions => 'dt=a')").collect()[0][0]
    assert file_counts(oracle, "parts") == {("a",): 1, ("b",): 5, ("c",): 5}
    assert PaimonTable.for_name(spark, "paimon.default.parts").compact(full=False, partitions=[{"dt": "c"}]) is True
    assert file_counts(oracle, "parts") == {("a",): 1, ("b",): 5, ("c",): 1}
    assert commit_kinds(warehouse, "parts")[-2:] == ["COMPACT", "COMPACT"]
    assert rows(spark.table("paimon.default.parts")) == expected
    assert oracle_rows(oracle, "parts") == expected


def test_nothing_happens_below_compaction_min_file_num(spark, oracle, warehouse):
    create(spark, "few", "'write-only' = 'true'")
    for i in range(4):
        append(spark, "few", i, i + 1)
    for strategy in ("full", "minor"):
        call = f"CALL paimon.sys.compact(table => 'default.few', compact_strategy => '{strategy}')"
        assert spark.sql(call).collect()[0]["result"] is False
    assert commit_kinds(warehouse, "few") == ["APPEND"] * 4
    spark.sql("ALTER TABLE paimon.default.few SET TBLPROPERTIES ('compaction.min.file-num' = '4')")
    assert PaimonTable.for_name(spark, "paimon.default.few").compact() is True
    assert file_counts(oracle, "few") == {(): 1}
    assert oracle_rows(oracle, "few") == [(i, f"v{i}", "a") for i in range(4)]


def test_writes_compact_the_partitions_they_wrote_once_they_reach_the_trigger(spark, oracle, warehouse):
    create(spark, "inline", partitioned=True)
    for i in range(4):
        append(spark, "inline", i * 10, i * 10 + 10, dt="a")
        append(spark, "inline", i * 10, i * 10 + 10, dt="b")
    assert commit_kinds(warehouse, "inline") == ["APPEND"] * 8
    append(spark, "inline", 40, 50, dt="a")
    assert commit_kinds(warehouse, "inline") == ["APPEND"] * 9 + ["COMPACT"]
    # Only the partition just written was compacted; b still waits for its fifth file.
    assert file_counts(oracle, "inline") == {("a",): 1, ("b",): 4}
    expected = sorted([(i, f"v{i}", "a") for i in range(50)] + [(i, f"v{i}", "b") for i in range(40)])
    assert rows(spark.table("paimon.default.inline")) == expected
    assert oracle_rows(oracle, "inline") == expected


def test_write_only_tables_are_not_compacted_by_writes(spark, oracle, warehouse):
    create(spark, "writeonly", "'write-only' = 'true', 'compaction.min.file-num' = '2'")
    for i in range(6):
        append(spark, "writeonly", i, i + 1)
    assert commit_kinds(warehouse, "writeonly") == ["APPEND"] * 6
    assert file_counts(oracle, "writeonly") == {(): 6}


def test_snapshot_before_the_compaction_still_reads_the_old_files(spark, oracle, warehouse):
    create(spark, "travel", "'write-only' = 'true'")
    for i in range(5):
        append(spark, "travel", i * 10, i * 10 + 10)
    before = ordered_rows(oracle, "travel")
    append(spark, "travel", 100, 101)
    assert PaimonTable.for_name(spark, "paimon.default.travel").compact() is True
    assert commit_kinds(warehouse, "travel") == ["APPEND"] * 6 + ["COMPACT"]
    # Compaction only adds files: snapshot 5 still reads its five files, and their rows.
    assert len(live_files(oracle, "travel", snapshot=5)[()]) == 5
    assert ordered_rows(oracle, "travel", snapshot=5) == before
    assert len(live_files(oracle, "travel")[()]) == 1
    assert sorted(ordered_rows(oracle, "travel")) == sorted(before + [(100, "v100", "a")])


@pytest.mark.parametrize("option, value", [
    ("compaction.min.file-num", "0"),
    ("compaction.min.file-num", "five"),
    ("compaction.small-file-ratio", "1.5"),
    ("compaction.small-file-ratio", "-0.1"),
    ("source.split.open-file-cost", "cheap"),
])
def test_bad_compaction_options_are_refused_at_create(spark, warehouse, option, value):
    with pytest.raises(InvalidOptionError, match=option.replace(".", r"\.")):
        spark.sql(f"CREATE TABLE paimon.default.badopt (a INT) TBLPROPERTIES ('{option}' = '{value}')")
    assert not table_dir(warehouse, "badopt").exists()


def by_bucket(oracle, name):
    """{(partition, bucket): rows in pypaimon's order}, read split by split."""
    builder = oracle.get_table(f"default.{name}").new_read_builder()
    out = {}
    for split in builder.new_scan().plan().splits():
        data = builder.new_read().to_arrow([split]).to_pylist()
        out.setdefault((tuple(split.partition.values), split.bucket), []).extend(tuple(r.values()) for r in data)
    return out


def test_bucketed_append_tables_hash_rows_to_buckets_and_keep_their_order(spark, oracle, warehouse):
    create(spark, "bucketed", "'bucket' = '3', 'bucket-key' = 'id', 'compaction.min.file-num' = '3'", partitioned=True)
    for batch in range(2):
        spark.sql(f"INSERT INTO paimon.default.bucketed SELECT CAST(id % 12 AS INT), 'b{batch}-' || id, "
                  f"IF(id < 20, 'a', 'b') FROM range(0, 30)")
    expected = {r[0]: r[1] for r in spark.sql("SELECT id, paimon.sys.bucket(3, id) FROM range(0, 12)").collect()}
    layout = by_bucket(oracle, "bucketed")
    assert {b for (_, b) in layout} == {0, 1, 2}
    for (_, bucket), bucket_rows in layout.items():
        assert all(expected[r[0]] == bucket for r in bucket_rows)
        # Within a bucket, the first write's rows come before the second's: Paimon's ordered append.
        batches = [int(r[1][1]) for r in bucket_rows]
        assert batches == sorted(batches)
    lookup = "SELECT v FROM paimon.default.bucketed WHERE id = 5"
    assert rows(spark.sql(lookup)) == [("b0-17",), ("b0-29",), ("b0-5",), ("b1-17",), ("b1-29",), ("b1-5",)]

    # The third write makes three files per bucket: each bucket's neighbours are compacted, in order.
    spark.sql("INSERT INTO paimon.default.bucketed SELECT CAST(id AS INT), 'b2-' || id, 'a' FROM range(0, 12)")
    assert commit_kinds(warehouse, "bucketed")[-2:] == ["APPEND", "COMPACT"]
    compacted = live_files(oracle, "bucketed")[("a",)]
    assert len(compacted) == 3 and all(f.file_source == 1 for f in compacted)
    for (partition, _), bucket_rows in by_bucket(oracle, "bucketed").items():
        batches = [int(r[1][1]) for r in bucket_rows]
        assert batches == sorted(batches) and (partition != ("a",) or batches[-1] == 2)

    # Row-level statements and overwrites keep every row in its key's bucket.
    spark.sql("DELETE FROM paimon.default.bucketed WHERE id = 1")
    spark.sql("UPDATE paimon.default.bucketed SET v = 'u' WHERE id = 2")
    spark.sql("""MERGE INTO paimon.default.bucketed t USING (SELECT 3 AS id, 'm' AS v, 'b' AS dt) s
                 ON t.id = s.id AND t.dt = s.dt WHEN MATCHED THEN UPDATE SET v = s.v""")
    spark.sql("INSERT OVERWRITE paimon.default.bucketed PARTITION (dt = 'b') SELECT id, v FROM paimon.default.bucketed "
              "WHERE dt = 'b' AND id < 6")
    final = rows(spark.table("paimon.default.bucketed"))
    assert oracle_rows(oracle, "bucketed") == final
    assert not [r for r in final if r[0] == 1] and {r[1] for r in final if r[0] == 2} == {"u"}
    assert {r[1] for r in final if r[0] == 3 and r[2] == "b"} == {"m"}
    assert all(expected[r[0]] == b for (_, b), rs in by_bucket(oracle, "bucketed").items() for r in rs)
    # A point lookup on the bucket key reads its bucket only: the other buckets' files can be garbage.
    for f in table_dir(warehouse, "bucketed").rglob("bucket-*/*.parquet"):
        if f.parent.name != f"bucket-{expected[5]}":
            f.write_bytes(b"not parquet")
    assert rows(spark.sql(lookup)) == [("b0-17",), ("b0-29",), ("b0-5",), ("b1-17",), ("b1-29",), ("b1-5",), ("b2-5",)]


@pytest.mark.parametrize("options, message", [
    ("'bucket' = '4'", "You should define a 'bucket-key' for bucketed append mode"),
    ("'bucket-key' = 'id'", "Cannot define 'bucket-key' with bucket = -1"),
    ("'bucket' = '4', 'bucket-key' = 'nope'", "bucket-key column 'nope' is not a column"),
    ("'bucket' = '4', 'bucket-key' = 'v', 'bucket-function.type' = 'mod'", "must be INT or BIGINT in mod bucket function"),
])
def test_bad_bucketed_append_tables_are_refused_at_create(spark, warehouse, options, message):
    with pytest.raises(InvalidOptionError, match=message):
        create(spark, "badbucket", options)
    assert not table_dir(warehouse, "badbucket").exists()
