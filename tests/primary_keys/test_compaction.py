"""Compaction of primary-key tables: inline after writes, by CALL and from Python; read back here and by pypaimon."""


import pytest

from conftest import commit_kinds, oracle_rows, rows, table_dir
from paimon_spark import InvalidOptionError, PaimonTable, SnapshotNotFoundError, UnsupportedFeatureError


def levels(oracle, name):
    """{(partition, bucket): sorted levels of its live files}, as pypaimon plans them."""
    splits = oracle.get_table(f"default.{name}").new_read_builder().new_scan().plan().splits()
    out = {}
    for s in splits:
        out.setdefault((tuple(s.partition.values), s.bucket), []).extend(f.level for f in s.files)
    return {k: sorted(v) for k, v in out.items()}


def create(spark, name, options="", partitioned=False):
    partition = "PARTITIONED BY (dt)" if partitioned else ""
    key = "dt,id" if partitioned else "id"
    spark.sql(f"CREATE TABLE paimon.default.{name} (dt STRING, id INT, v STRING, op STRING) {partition} "
              f"TBLPROPERTIES ('primary-key' = '{key}', 'bucket' = '2', 'rowkind.field' = 'op' {options})")


def upsert(spark, name, start, end, tag, dt="a", op="+I"):
    spark.sql(f"INSERT INTO paimon.default.{name} SELECT '{dt}', CAST(id AS INT), '{tag}', '{op}' "
              f"FROM range({start}, {end})")


def test_writes_compact_inline_once_a_bucket_has_enough_runs(spark, oracle, warehouse):
    create(spark, "inline")
    for i in range(4):
        upsert(spark, "inline", i * 10, i * 10 + 40, f"v{i}")
    assert commit_kinds(warehouse, "inline") == ["APPEND"] * 4
    upsert(spark, "inline", 0, 5, "v4")
    assert commit_kinds(warehouse, "inline") == ["APPEND"] * 5 + ["COMPACT"]
    # Five runs against the default trigger of 5: everything went to the top level (num-levels 6).
    assert all(ls == [5] for ls in levels(oracle, "inline").values())
    expected = [("a", i, "v4" if i < 5 else f"v{min(i // 10, 3)}", "+I") for i in range(70)]
    assert rows(spark.table("paimon.default.inline")) == expected
    assert oracle_rows(oracle, "inline") == expected


def test_write_only_tables_are_never_compacted_by_writes(spark, warehouse):
    create(spark, "writeonly", ", 'write-only' = 'true', 'num-sorted-run.compaction-trigger' = '2'")
    for i in range(4):
        upsert(spark, "writeonly", 0, 10, f"v{i}")
    assert commit_kinds(warehouse, "writeonly") == ["APPEND"] * 4


def test_compaction_options_shape_the_levels(spark, oracle, warehouse):
    # A bucket's two runs differ in size by how many keys hash there: a size ratio of 50% takes both in every bucket.
    create(spark, "shaped", ", 'num-sorted-run.compaction-trigger' = '2', 'num-levels' = '3', 'compaction.size-ratio' = '50'")
    upsert(spark, "shaped", 0, 20, "a")
    upsert(spark, "shaped", 10, 30, "b")
    assert commit_kinds(warehouse, "shaped") == ["APPEND", "APPEND", "COMPACT"]
    assert all(ls == [2] for ls in levels(oracle, "shaped").values()), levels(oracle, "shaped")


def test_full_compaction_by_call_drops_deleted_keys(spark, oracle, warehouse):
    create(spark, "full", ", 'write-only' = 'true'", partitioned=True)
    upsert(spark, "full", 0, 30, "x", dt="a")
    upsert(spark, "full", 0, 30, "x", dt="b")
    upsert(spark, "full", 0, 10, "x", dt="a", op="-D")
    upsert(spark, "full", 5, 15, "y", dt="a", op="+U")
    before = rows(spark.table("paimon.default.full"))
    assert oracle_rows(oracle, "full") == before and len(before) == 30 + 25
    assert spark.sql("CALL paimon.sys.compact(table => 'default.full')").collect()[0]["result"] is True
    assert commit_kinds(warehouse, "full")[-1] == "COMPACT"
    assert rows(spark.table("paimon.default.full")) == before
    assert oracle_rows(oracle, "full") == before
    assert all(ls == [5] for ls in levels(oracle, "full").values())
    splits = oracle.get_table("default.full").new_read_builder().new_scan().plan().splits()
    assert sum(f.row_count for s in splits for f in s.files) == len(before)
    assert all(f.delete_row_count == 0 for s in splits for f in s.files)
    # A second full compaction has nothing left to do, unless told to rewrite every file.
    assert spark.sql("CALL paimon.sys.compact(table => 'default.full')").collect()[0]["result"] is False
    files = {f.file_name for s in splits for f in s.files}
    assert spark.sql("CALL paimon.sys.compact(table => 'default.full', "
                     "options => 'compaction.force-rewrite-all-files=true')").collect()[0]["result"] is True
    splits = oracle.get_table("default.full").new_read_builder().new_scan().plan().splits()
    assert not files & {f.file_name for s in splits for f in s.files}
    assert rows(spark.table("paimon.default.full")) == before and oracle_rows(oracle, "full") == before
    assert all(ls == [5] for ls in levels(oracle, "full").values())


def test_compaction_of_chosen_partitions_from_python(spark, oracle, warehouse):
    create(spark, "chosen", ", 'write-only' = 'true'", partitioned=True)
    for i in range(3):
        upsert(spark, "chosen", 0, 20, f"v{i}", dt="a")
        upsert(spark, "chosen", 0, 20, f"v{i}", dt="b")
    table = PaimonTable.for_name(spark, "paimon.default.chosen")
    assert table.compact(full=False) is False  # 3 runs per bucket: below the trigger
    assert table.compact(partitions=[{"dt": "b"}]) is True
    by_partition = levels(oracle, "chosen")
    assert all(ls == [5] for (p, _), ls in by_partition.items() if p == ("b",))
    assert all(ls == [0, 0, 0] for (p, _), ls in by_partition.items() if p == ("a",))
    assert oracle_rows(oracle, "chosen") == rows(spark.table("paimon.default.chosen"))
    assert len(rows(spark.table("paimon.default.chosen"))) == 40


def live_files(oracle, name):
    """{file name: level} of the live data files, as pypaimon plans them."""
    splits = oracle.get_table(f"default.{name}").new_read_builder().new_scan().plan().splits()
    return {f.file_name: f.level for s in splits for f in s.files}


def test_large_files_that_overlap_nothing_move_up_without_being_rewritten(spark, oracle, warehouse):
    # Files roll every 1,024 rows at this target size, and every such file is large (>= 0.7 kb).
    spark.sql("CREATE TABLE paimon.default.moved (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'write-only' = 'true', 'target-file-size' = '1 kb')")
    spark.sql("INSERT INTO paimon.default.moved SELECT CAST(id AS INT), 'a' FROM range(0, 2048)")
    spark.sql("INSERT INTO paimon.default.moved SELECT CAST(id AS INT), 'b' FROM range(5000, 6024)")
    before = live_files(oracle, "moved")
    assert sorted(before.values()) == [0, 0, 0]
    PaimonTable.for_name(spark, "paimon.default.moved").compact(full=True)
    assert commit_kinds(warehouse, "moved")[-1] == "COMPACT"
    # The same three files, now at the top level: nothing was rewritten.
    assert live_files(oracle, "moved") == {name: 5 for name in before}
    expected = [(i, "a") for i in range(2048)] + [(i, "b") for i in range(5000, 6024)]
    assert rows(spark.table("paimon.default.moved")) == expected
    assert oracle_rows(oracle, "moved") == expected

    # New keys across both files of the first write: those two are merged with them, the third
    # file, already at the top level and overlapping nothing, stays as it is.
    spark.sql("INSERT INTO paimon.default.moved SELECT CAST(id AS INT), 'c' FROM range(1000, 1100)")
    PaimonTable.for_name(spark, "paimon.default.moved").compact(full=True)
    after = live_files(oracle, "moved")
    kept = [n for n in before if n in after]
    assert len(kept) == 1 and after[kept[0]] == 5
    assert set(after.values()) == {5} and len(after) > 1
    expected = [(i, "c" if 1000 <= i < 1100 else v) for i, v in expected]
    assert rows(spark.table("paimon.default.moved")) == expected
    assert oracle_rows(oracle, "moved") == expected


LOOKUP_LAYOUTS = {"lookup": "'changelog-producer' = 'lookup'", "vectors": "'deletion-vectors.enabled' = 'true'",
                  "lookup_vectors": "'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true'"}


@pytest.mark.parametrize("layout", list(LOOKUP_LAYOUTS))
def test_a_deduplicate_table_that_looks_keys_up_moves_level_0_files_up_unwritten(spark, oracle, layout):
    """Paimon's upgrade strategy: a level-0 file a compaction moves up alone is read (for its changelog and the
    versions it replaces) but, in a deduplicate table without sequence.field, not rewritten: it reaches the levels
    between 0 and the top as written (file_source APPEND). A twin whose level-0 files are Avro
    (file.format.per.level), which are rewritten, as every level-0 file was before, holds and logs the same."""
    moved, twin = f"up_{layout}", f"up_{layout}_rewritten"
    for name, formats in ((moved, ""), (twin, ", 'file.format.per.level' = '0:avro'")):
        spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
                  f"'bucket' = '1', {LOOKUP_LAYOUTS[layout]}{formats})")
    # The first write goes to the top level, the second (small against it) to the level below, alone.
    steps = ["INSERT INTO {t} SELECT CAST(id AS INT), 'a' FROM range(0, 100)",
             "INSERT INTO {t} VALUES (1, 'b'), (2, 'b'), (200, 'b')",
             "DELETE FROM {t} WHERE id IN (3, 200)",
             "INSERT INTO {t} VALUES (2, 'c'), (4, 'c'), (201, 'c')"]
    written_as_appended = {moved: set(), twin: set()}
    for step in steps:
        for name in (moved, twin):
            spark.sql(step.format(t=f"paimon.default.{name}"))
            written_as_appended[name] |= {(r.file_path, r.level) for r in spark.sql(
                f"SELECT file_path, level FROM paimon.default.`{name}$files` "
                "WHERE level > 0 AND file_source = 'APPEND'").collect()}
    assert any(0 < level < 5 for _, level in written_as_appended[moved]), written_as_appended[moved]
    assert written_as_appended[twin] == set()

    expected = sorted([(i, "a") for i in range(5, 100)] + [(0, "a"), (1, "b"), (2, "c"), (4, "c"), (201, "c")])
    for name in (moved, twin):
        assert rows(spark.table(f"paimon.default.{name}")) == expected, name
        assert oracle_rows(oracle, name) == expected, name

    def changes(name):
        latest = spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots`").first()[0]
        return rows(spark.sql(f"SELECT rowkind, id, v FROM paimon.default.`{name}$audit_log` "
                              f"WITH ('incremental-between' = '0,{latest}')"))
    assert changes(moved) == changes(twin)


def test_compaction_keeps_merge_engine_semantics(spark, oracle):
    spark.sql("CREATE TABLE paimon.default.sums (id INT, total BIGINT, name STRING) TBLPROPERTIES "
              "('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'aggregation', "
              "'fields.total.aggregate-function' = 'sum', 'write-only' = 'true')")
    for i in range(3):
        spark.sql(f"INSERT INTO paimon.default.sums VALUES (1, {i + 1}, 'n{i}'), (2, 10, NULL)")
    expected = [(1, 6, "n2"), (2, 30, None)]
    assert rows(spark.table("paimon.default.sums")) == expected
    PaimonTable.for_name(spark, "paimon.default.sums").compact()
    assert rows(spark.table("paimon.default.sums")) == expected
    assert oracle_rows(oracle, "sums") == expected


def test_bad_compaction_calls_are_refused(spark):
    create(spark, "badcall")
    with pytest.raises(InvalidOptionError, match="compact_strategy"):
        spark.sql("CALL paimon.sys.compact(table => 'default.badcall', compact_strategy => 'huge')")
    with pytest.raises(InvalidOptionError, match="partitions"):
        spark.sql("CALL paimon.sys.compact(table => 'default.badcall', partitions => 'id=1')")


def buckets(oracle, name):
    """{partition: sorted buckets holding live files}, as pypaimon plans them."""
    out = {}
    for (partition, bucket) in levels(oracle, name):
        out.setdefault(partition, set()).add(bucket)
    return {p: sorted(b) for p, b in out.items()}


def test_rescale_changes_the_bucket_count_partition_by_partition(spark, oracle, warehouse):
    create(spark, "rescaled", partitioned=True)
    for dt in ("a", "b"):
        upsert(spark, "rescaled", 0, 40, dt, dt=dt)
    before = rows(spark.table("paimon.default.rescaled"))
    spark.sql("ALTER TABLE paimon.default.rescaled SET TBLPROPERTIES ('bucket' = '4')")
    # The partitions keep two buckets: a write there must rescale first, as in Paimon.
    kinds = commit_kinds(warehouse, "rescaled")
    with pytest.raises(InvalidOptionError, match=r"Try to write partition \{dt=a\} with a new bucket num 4, but the "
                                                 "previous bucket num is 2"):
        upsert(spark, "rescaled", 0, 5, "late", dt="a")
    assert commit_kinds(warehouse, "rescaled") == kinds
    upsert(spark, "rescaled", 0, 40, "c", dt="c")  # a new partition gets four
    result = spark.sql("CALL paimon.sys.rescale(table => 'default.rescaled', partitions => 'dt=\"a\"')").collect()
    assert [tuple(r) for r in result] == [(True,)]
    assert commit_kinds(warehouse, "rescaled")[-1] == "OVERWRITE"
    assert buckets(oracle, "rescaled") == {("a",): [0, 1, 2, 3], ("b",): [0, 1], ("c",): [0, 1, 2, 3]}
    expected = before + [("c", i, "c", "+I") for i in range(40)]
    assert rows(spark.table("paimon.default.rescaled")) == sorted(expected)
    assert oracle_rows(oracle, "rescaled") == sorted(expected)
    # A point lookup finds its key's bucket under each partition's own count.
    for dt in ("a", "b", "c"):
        assert rows(spark.sql(f"SELECT v FROM paimon.default.rescaled WHERE dt = '{dt}' AND id = 7")) == [(dt,)]
    upsert(spark, "rescaled", 0, 5, "late", dt="a")
    spark.sql("CALL paimon.sys.rescale(table => 'default.rescaled', where => \"dt = 'b'\")")
    upsert(spark, "rescaled", 0, 5, "late", dt="b")
    assert buckets(oracle, "rescaled")[("b",)] == [0, 1, 2, 3]
    assert rows(spark.sql("SELECT dt, count(*), sum(if(v = 'late', 1, 0)) FROM paimon.default.rescaled GROUP BY dt")) \
        == [("a", 40, 5), ("b", 40, 5), ("c", 40, 0)]
    # Rescaling to fewer buckets; a partition that holds nothing commits nothing.
    PaimonTable.for_name(spark, "paimon.default.rescaled").rescale(bucket_num=1, partitions=[{"dt": "c"}])
    assert buckets(oracle, "rescaled")[("c",)] == [0]
    kinds = commit_kinds(warehouse, "rescaled")
    spark.sql("CALL paimon.sys.rescale(table => 'default.rescaled', partitions => 'dt=zzz')")
    assert commit_kinds(warehouse, "rescaled") == kinds
    assert oracle_rows(oracle, "rescaled") == rows(spark.table("paimon.default.rescaled"))


def test_insert_overwrite_rescales_too(spark, oracle):
    create(spark, "overscale")
    upsert(spark, "overscale", 0, 20, "x")
    spark.sql("ALTER TABLE paimon.default.overscale SET TBLPROPERTIES ('bucket' = '3')")
    with pytest.raises(InvalidOptionError, match="Try to write table with a new bucket num 3"):
        upsert(spark, "overscale", 0, 5, "y")
    spark.sql("INSERT OVERWRITE paimon.default.overscale SELECT * FROM paimon.default.overscale")
    upsert(spark, "overscale", 0, 5, "y")
    assert buckets(oracle, "overscale") == {(): [0, 1, 2]}
    expected = [("a", i, "y" if i < 5 else "x", "+I") for i in range(20)]
    assert rows(spark.table("paimon.default.overscale")) == oracle_rows(oracle, "overscale") == expected


def test_bad_rescales_are_refused(spark):
    create(spark, "badscale", partitioned=True)
    with pytest.raises(SnapshotNotFoundError, match="has no snapshot, no need to rescale"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.badscale', bucket_num => 4)")
    upsert(spark, "badscale", 0, 5, "x")
    with pytest.raises(InvalidOptionError, match="partitions and where cannot be used together"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.badscale', partitions => 'dt=a', where => \"dt = 'a'\")")
    with pytest.raises(InvalidOptionError, match="partition columns"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.badscale', where => 'id = 1')")
    with pytest.raises(InvalidOptionError, match="bucket_num must be positive"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.badscale', bucket_num => 0)")
    with pytest.raises(UnsupportedFeatureError, match="Cannot change bucket to -1"):
        spark.sql("ALTER TABLE paimon.default.badscale SET TBLPROPERTIES ('bucket' = '-1')")
    with pytest.raises(UnsupportedFeatureError, match="Cannot reset bucket"):
        spark.sql("ALTER TABLE paimon.default.badscale UNSET TBLPROPERTIES ('bucket')")
    spark.sql("CREATE TABLE paimon.default.dynscale (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id')")
    with pytest.raises(UnsupportedFeatureError, match="Cannot change bucket when it is -1"):
        spark.sql("ALTER TABLE paimon.default.dynscale SET TBLPROPERTIES ('bucket' = '4')")
    spark.sql("INSERT INTO paimon.default.dynscale VALUES (1, 'a')")
    with pytest.raises(UnsupportedFeatureError, match="fixed bucket count"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.dynscale', bucket_num => 4)")


def test_postpone_bucket_tables_hide_rows_until_compaction_assigns_buckets(spark, oracle, warehouse):
    spark.sql("CREATE TABLE paimon.default.postponed (dt STRING, id INT, v STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '-2', 'postpone.default-bucket-num' = '3')")
    # A batch write goes straight into fixed buckets, as Paimon's Spark writer does: Spark's parallelism of them.
    spark.sql("INSERT INTO paimon.default.postponed SELECT 'a', CAST(id AS INT), 'v1' FROM range(0, 20)")
    assert len(rows(spark.table("paimon.default.postponed"))) == 20
    assert buckets(oracle, "postponed") == {("a",): [0, 1]}
    # Without it, writes land in the postpone bucket, which readers skip, deletes included.
    spark.sql("ALTER TABLE paimon.default.postponed SET TBLPROPERTIES ('postpone.batch-write-fixed-bucket' = 'false')")
    spark.sql("INSERT INTO paimon.default.postponed SELECT dt, CAST(id AS INT), 'v2' FROM "
              "VALUES ('a'), ('b') AS p(dt), range(10, 30)")
    spark.sql("DELETE FROM paimon.default.postponed WHERE dt = 'a' AND id < 5")
    assert rows(spark.table("paimon.default.postponed")) == [("a", i, "v1") for i in range(20)]
    assert (table_dir(warehouse, "postponed") / "dt=b" / "bucket-postpone").is_dir()
    assert spark.sql("SELECT count(*) FROM paimon.default.`postponed$files` WHERE bucket = -2").first()[0] > 0
    query = (spark.readStream.table("paimon.default.postponed").writeStream.format("memory").queryName("pp")
             .trigger(availableNow=True).start())
    with pytest.raises(Exception, match="postpone-bucket table"):
        query.awaitTermination(60)
    # Compaction moves them: into the partition's two buckets, or postpone.default-bucket-num in a new one.
    assert spark.sql("CALL paimon.sys.compact(table => 'default.postponed')").collect()[0]["result"] is True
    expected = sorted([("a", i, "v1") for i in range(5, 10)] + [("a", i, "v2") for i in range(10, 30)] +
                      [("b", i, "v2") for i in range(10, 30)])
    assert rows(spark.table("paimon.default.postponed")) == expected
    assert oracle_rows(oracle, "postponed") == expected
    assert buckets(oracle, "postponed") == {("a",): [0, 1], ("b",): [0, 1, 2]}
    assert spark.sql("SELECT count(*) FROM paimon.default.`postponed$files` WHERE bucket = -2").first()[0] == 0
    # A rescale gives a partition another count; it needs bucket_num, and refuses a partition with postponed rows.
    with pytest.raises(InvalidOptionError, match="you must provide the resulting bucket number"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.postponed')")
    spark.sql("CALL paimon.sys.rescale(table => 'default.postponed', bucket_num => 4, partitions => 'dt=a')")
    assert buckets(oracle, "postponed") == {("a",): [0, 1, 2, 3], ("b",): [0, 1, 2]}
    assert rows(spark.table("paimon.default.postponed")) == expected
    spark.sql("INSERT INTO paimon.default.postponed VALUES ('b', 99, 'late')")
    with pytest.raises(UnsupportedFeatureError, match="postpone bucket of partition 'dt=b'"):
        spark.sql("CALL paimon.sys.rescale(table => 'default.postponed', bucket_num => 2, partitions => 'dt=b')")


def test_bad_postpone_tables_are_refused(spark, warehouse):
    with pytest.raises(UnsupportedFeatureError, match="The number of buckets needs to be greater than 0"):
        spark.sql("CREATE TABLE paimon.default.pp_append (id INT) TBLPROPERTIES ('bucket' = '-2')")
    with pytest.raises(InvalidOptionError, match="postpone.default-bucket-num"):
        spark.sql("CREATE TABLE paimon.default.pp_bad (id INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-2', "
                  "'postpone.default-bucket-num' = '0')")
    assert not table_dir(warehouse, "pp_append").exists() and not table_dir(warehouse, "pp_bad").exists()
