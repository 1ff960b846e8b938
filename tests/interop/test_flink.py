"""Real Apache Flink 2.0.0 with Apache Paimon's Flink connector on the same warehouse as us: every Flink type,
tables that look keys up under each merge engine, each side's compaction of the other's tables, dynamic
buckets, schema changes and tags, and Flink's streaming changelog of our table against ours. One Flink JVM
for the module (tests/support/flink.py)."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest

from conftest import new_session
from flink import Flink, plain

T = "paimon.default.{}"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("flink") / "warehouse"


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator:
    # Timestamps come back to Python in its zone: UTC, as Flink's are read here.
    os.environ["TZ"] = "UTC"
    time.tzset()
    session = new_session(warehouse, **{"spark.sql.session.timeZone": "UTC"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def flink(warehouse: Path, spark, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flink]:
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.default")
    server = Flink(warehouse, tmp_path_factory.mktemp("flink-log") / "flink.log")
    yield server
    server.stop()


def ours(spark, query: str) -> list[tuple]:
    return sorted((tuple(plain(v) for v in row) for row in spark.sql(query).collect()), key=repr)


TYPES = [  # column, Flink type, Flink literal, Spark literal
    ("tb", "TINYINT", "CAST(-7 AS TINYINT)", "CAST(-7 AS TINYINT)"),
    ("sm", "SMALLINT", "CAST(300 AS SMALLINT)", "CAST(300 AS SMALLINT)"),
    ("i", "INT", "2147483647", "2147483647"),
    ("bi", "BIGINT", "-9223372036854775807", "-9223372036854775807"),
    ("f", "FLOAT", "CAST(1.5 AS FLOAT)", "CAST(1.5 AS FLOAT)"),
    ("d", "DOUBLE", "CAST(-2.25 AS DOUBLE)", "CAST(-2.25 AS DOUBLE)"),
    ("dec9", "DECIMAL(9, 2)", "CAST('1234567.89' AS DECIMAL(9, 2))", "CAST('1234567.89' AS DECIMAL(9, 2))"),
    ("dec38", "DECIMAL(38, 10)", "CAST('1234567890123456789012345678.1234567890' AS DECIMAL(38, 10))",
     "CAST('1234567890123456789012345678.1234567890' AS DECIMAL(38, 10))"),
    ("c", "CHAR(5)", "CAST('abcde' AS CHAR(5))", "'abcde'"),
    ("vc", "VARCHAR(10)", "'hello'", "'hello'"),
    ("s", "STRING", "'ünïcode'", "'ünïcode'"),
    ("b", "BOOLEAN", "TRUE", "TRUE"),
    ("bin", "BINARY(4)", "X'01020304'", "X'01020304'"),
    ("vb", "VARBINARY(8)", "X'0506'", "X'0506'"),
    ("dt", "DATE", "DATE '2024-02-29'", "DATE '2024-02-29'"),
    ("tm", "TIME", "TIME '12:34:56'", "45296000"),
    ("ts0", "TIMESTAMP(0)", "TIMESTAMP '2024-02-29 23:59:58'", "TIMESTAMP_NTZ '2024-02-29 23:59:58'"),
    ("ts3", "TIMESTAMP(3)", "TIMESTAMP '2024-02-29 23:59:58.123'", "TIMESTAMP_NTZ '2024-02-29 23:59:58.123'"),
    ("ts6", "TIMESTAMP(6)", "TIMESTAMP '1969-12-31 23:59:59.999999'", "TIMESTAMP_NTZ '1969-12-31 23:59:59.999999'"),
    ("ts9", "TIMESTAMP(9)", "TIMESTAMP '2024-02-29 23:59:58.123456'", "TIMESTAMP_NTZ '2024-02-29 23:59:58.123456'"),
    ("ltz3", "TIMESTAMP_LTZ(3)", "CAST(TIMESTAMP '2024-01-01 00:00:01.501' AS TIMESTAMP_LTZ(3))",
     "TIMESTAMP '2024-01-01 00:00:01.501'"),
    ("ltz6", "TIMESTAMP_LTZ(6)", "CAST(TIMESTAMP '1900-01-01 00:00:00.5' AS TIMESTAMP_LTZ(6))",
     "TIMESTAMP '1900-01-01 00:00:00.5'"),
    ("arr", "ARRAY<TIMESTAMP(3)>", "ARRAY[TIMESTAMP '2024-01-01 00:00:01.501', CAST(NULL AS TIMESTAMP(3))]",
     "array(TIMESTAMP_NTZ '2024-01-01 00:00:01.501', NULL)"),
    ("m", "MAP<STRING, INT>", "MAP['k1', 1, 'k2', 2]", "map('k1', 1, 'k2', 2)"),
    ("r", "ROW<x INT, t9 TIMESTAMP(9)>", "ROW(1, TIMESTAMP '1969-12-31 23:59:59.999999')",
     "named_struct('x', 1, 't9', TIMESTAMP_NTZ '1969-12-31 23:59:59.999999')"),
]


def test_every_flink_type_is_read_here_as_flink_wrote_it_and_read_by_flink_as_we_wrote_it(spark, flink):
    columns = ", ".join(f"{c} {t}" for c, t, _, _ in TYPES)
    flink.run(f"CREATE TABLE types (id INT, {columns}, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');")
    nulls = ", ".join(f"CAST(NULL AS {t})" for _, t, _, _ in TYPES)
    flink.run(f"INSERT INTO types VALUES (1, {', '.join(f for _, _, f, _ in TYPES)}), (3, {nulls});")
    spark.sql(f"INSERT INTO {T.format('types')} VALUES (2, {', '.join(s for _, _, _, s in TYPES)}), "
              f"(4, {', '.join('NULL' for _ in TYPES)})")
    by_flink = {row[0]: row[1:] for row in flink.rows("SELECT * FROM types")}
    tm = [c for c, _, _, _ in TYPES].index("tm")

    def with_time(row: tuple) -> tuple:  # TIME is an int of milliseconds in Spark, a time of day in Flink
        ms = row[tm]
        text = None if ms is None else f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"
        return row[:tm] + (text,) + row[tm + 1:]

    by_us = {row[0]: with_time(row[1:]) for row in ours(spark, f"SELECT * FROM {T.format('types')}")}
    # Flink reads our row as its own, and we read its row as ours: every value, at every precision.
    assert by_flink[2] == by_flink[1] and by_flink[4] == by_flink[3] == tuple(None for _ in TYPES)
    assert by_us == by_flink
    assert by_us[1][[c for c, _, _, _ in TYPES].index("ts3")] == "2024-02-29 23:59:58.123000"


LOOKUP_ENGINES = {  # columns, options, three commits (Flink literals = Spark literals here), the rows they leave
    "deduplicate": ("v STRING", "", ["(1, 'a'), (2, 'b')", "(1, 'a2'), (3, 'c')", "(2, 'b3'), (4, 'd')"],
                    [(1, "a2"), (2, "b3"), (3, "c"), (4, "d")]),
    "deduplicate_dv": ("v STRING", "'deletion-vectors.enabled' = 'true'",
                       ["(1, 'a'), (2, 'b')", "(1, 'a2'), (3, 'c')", "(2, 'b3'), (4, 'd')"],
                       [(1, "a2"), (2, "b3"), (3, "c"), (4, "d")]),
    "partial_update": ("a STRING, b INT, c STRING", "'merge-engine' = 'partial-update'",
                       ["(1, 'a1', 10, 'c1'), (2, 'a2', 20, 'c2'), (3, 'a3', 30, 'c3')",
                        "(3, CAST(NULL AS STRING), CAST(NULL AS INT), 'c3x'), (1, CAST(NULL AS STRING), 11, "
                        "CAST(NULL AS STRING))",
                        "(3, 'a3y', CAST(NULL AS INT), CAST(NULL AS STRING))"],
                       [(1, "a1", 11, "c1"), (2, "a2", 20, "c2"), (3, "a3y", 30, "c3x")]),
    "aggregation": ("s BIGINT, l STRING", "'merge-engine' = 'aggregation', 'fields.s.aggregate-function' = 'sum', "
                    "'fields.l.aggregate-function' = 'listagg'",
                    ["(1, CAST(1 AS BIGINT), 'a'), (2, CAST(2 AS BIGINT), 'b')",
                     "(1, CAST(10 AS BIGINT), 'x')", "(1, CAST(100 AS BIGINT), 'q'), (2, CAST(20 AS BIGINT), 'y')"],
                    [(1, 111, "a,x,q"), (2, 22, "b,y")]),
    "sequenced": ("v STRING, ts INT", "'sequence.field' = 'ts'",
                  ["(1, 'new', 10), (2, 'b', 1)", "(1, 'old', 5)", "(2, 'b2', 2), (1, 'older', 1)"],
                  [(1, "new", 10), (2, "b2", 2)]),
    "first_row": ("v STRING", "'merge-engine' = 'first-row'", ["(1, 'first'), (2, 'b')", "(1, 'second')",
                                                               "(2, 'b2'), (3, 'c')"],
                  [(1, "first"), (2, "b"), (3, "c")]),
}


def every_table_as_text(names: list[str], columns: dict[str, str], prefix: str = "", where: str = "") -> str:
    """One query over tables of different columns: each row as its table's name, then its values as text, padded
    with nulls to the widest table's."""
    width = max(len(c.split(",")) for c in columns.values())

    def of(name: str) -> str:
        values = ["CAST(id AS STRING)"] + [f"CAST({c.split()[0]} AS STRING)" for c in columns[name].split(",")]
        values += ["CAST(NULL AS STRING)"] * (width + 1 - len(values))
        return f"SELECT '{name}', {', '.join(values)} FROM {prefix}{name}{where}"
    return " UNION ALL ".join(of(n) for n in names)


def last_commits(spark, names: list[str]) -> set[str]:
    """The kind of each table's latest snapshot."""
    return {r[0] for r in spark.sql(" UNION ALL ".join(
        f"SELECT * FROM (SELECT commit_kind FROM paimon.default.`{n}$snapshots` ORDER BY snapshot_id DESC LIMIT 1)"
        for n in names)).collect()}


def test_tables_that_look_keys_up_read_alike_whoever_wrote_and_compacted_them(spark, flink):
    """Three commits with the lookup producer by each side for each merge engine, into a top level of filler
    keys: Flink's and our compactions merge level-0 versions into the levels between, which each side's reader
    takes alone; but a deduplicate table without sequence.field (with or without deletion vectors) moves its
    level-0 files there unwritten, on both sides (Paimon's upgrade strategy), and logs the same changes. One
    Flink job writes a commit into every table, one query reads them all."""
    tables = {f"{side}_{engine}": engine for side in ("flink", "ours") for engine in LOOKUP_ENGINES}
    columns = {t: LOOKUP_ENGINES[e][0] for t, e in tables.items()}

    def props(engine: str) -> str:
        vectors = "'deletion-vectors.enabled' = 'true'" if engine == "aggregation" else ""
        return ", ".join(p for p in ("'bucket' = '2', 'changelog-producer' = 'lookup'", LOOKUP_ENGINES[engine][1],
                                     vectors) if p)
    flink.run("\n".join(f"CREATE TABLE {t} (id INT, {columns[t]}, PRIMARY KEY (id) NOT ENFORCED) WITH ({props(e)});"
                        for t, e in tables.items()))

    def filler(engine: str) -> str:  # keys with null values, as a query (Flink plans rows with casts one by one)
        nulls = ", ".join(f"CAST(NULL AS {c.split()[1]})" for c in LOOKUP_ENGINES[engine][0].split(","))
        return f"SELECT id, {nulls} FROM (VALUES {', '.join(f'({i})' for i in range(100, 400))}) AS f(id)"
    unwritten: set[str] = set()
    for batch in [{e: filler(e) for e in LOOKUP_ENGINES}] + [{e: f"VALUES {c[2][i]}" for e, c in LOOKUP_ENGINES.items()}
                                                             for i in range(3)]:
        flink.run("EXECUTE STATEMENT SET BEGIN " + " ".join(f"INSERT INTO flink_{e} {q};" for e, q in batch.items())
                  + " END;")
        for engine, query in batch.items():
            spark.sql(f"INSERT INTO {T.format(f'ours_{engine}')} {query}")
        unwritten |= {r[0] for r in spark.sql(" UNION ALL ".join(
            f"SELECT '{t}' FROM paimon.default.`{t}$files` WHERE level BETWEEN 1 AND 4 AND file_source = 'APPEND'"
            for t in tables)).collect()}
    # Level-0 files that reached the levels between unwritten: only the deduplicate tables', Flink's as ours.
    assert unwritten == {f"{side}_{e}" for side in ("flink", "ours") for e in ("deduplicate", "deduplicate_dv")}
    want = sorted(((t, *(None if v is None else str(v) for v in row), *([None] * (3 - len(row) + 1)))
                   for t, e in tables.items() for row in LOOKUP_ENGINES[e][3]), key=repr)

    def both_read(when: str) -> None:
        assert flink.rows(every_table_as_text(list(tables), columns, where=" WHERE id < 100")) == want, f"Flink, {when}"
        assert ours(spark, every_table_as_text(list(tables), columns, "paimon.default.", " WHERE id < 100")) == want, \
            f"us, {when}"
    both_read("as written")
    # The changes of the deduplicate tables (vectors' batch scans skip level 0, where changelog files are), read
    # by both, as the lookup producer logs them, whichever side wrote them.
    logged = ["ours_deduplicate", "flink_deduplicate"]
    latest = {t: spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{t}$snapshots`").first()[0] for t in logged}
    by_flink = flink.rows(" UNION ALL ".join(f"SELECT '{t}', rowkind, id, v FROM `{t}$audit_log` /*+ OPTIONS("
                                             f"'incremental-between' = '0,{latest[t]}') */ WHERE id < 100" for t in logged))
    by_us = ours(spark, " UNION ALL ".join(f"SELECT '{t}', rowkind, id, v FROM paimon.default.`{t}$audit_log` WITH "
                                           f"('incremental-between' = '0,{latest[t]}') WHERE id < 100" for t in logged))
    assert by_us == by_flink
    changes = [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("+I", 3, "c"), ("-U", 2, "b"),
               ("+U", 2, "b3"), ("+I", 4, "d")]
    assert by_us == sorted(((t, *c) for t in logged for c in changes), key=repr)
    # Each compacts the other's tables fully; both still read the same rows.
    flink.run(f"CALL sys.compact_database(including_databases => 'default', including_tables => "
              f"'default\\.ours_({'|'.join(LOOKUP_ENGINES)})', compact_strategy => 'full');")
    assert last_commits(spark, [f"ours_{e}" for e in LOOKUP_ENGINES]) == {"COMPACT"}
    for engine in LOOKUP_ENGINES:
        spark.sql(f"CALL paimon.sys.compact(table => 'default.flink_{engine}')")
    both_read("compacted by the other")


ENGINES = {"dedup": "", "pu": "'merge-engine' = 'partial-update', ",
           "agg": "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', ",
           "first": "'merge-engine' = 'first-row', "}
# Every merge engine with each changelog producer but lookup (the test above), and with deletion vectors.
MATRIX = {f"{engine}_{name}": ENGINES[engine] + options for engine in ENGINES for name, options in [
    ("none", "'changelog-producer' = 'none'"), ("input", "'changelog-producer' = 'input'"),
    ("full", "'changelog-producer' = 'full-compaction'"),
    ("dv", "'changelog-producer' = 'input', 'deletion-vectors.enabled' = 'true'")]
    if engine != "first" or name == "none"}
COMMITS = ["(1, 'a', CAST(1 AS BIGINT)), (2, 'b', CAST(2 AS BIGINT)), (3, 'c', CAST(3 AS BIGINT))",
           "(1, CAST(NULL AS STRING), CAST(10 AS BIGINT)), (3, 'c2', CAST(NULL AS BIGINT)), (4, 'd', CAST(4 AS BIGINT))",
           "(2, 'b3', CAST(20 AS BIGINT)), (1, 'a3', CAST(NULL AS BIGINT))"]


def test_every_merge_engine_and_changelog_producer_reads_alike_whoever_wrote_or_compacted_it(spark, flink):
    """The same three commits into a table of each layout by Flink and by us; each reads all of them, and the
    changelogs, alike; then each compacts the other's tables fully and both read them alike again."""
    tables = [f"{side}_m_{name}" for side in ("flink", "ours") for name in MATRIX]
    flink.run("\n".join(f"CREATE TABLE {side}_m_{name} (id INT, s STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
                        f"WITH ('bucket' = '2', {options});" for side in ("flink", "ours") for name, options in MATRIX.items()))
    for values in COMMITS:  # one Flink job per commit writes every table
        flink.run("EXECUTE STATEMENT SET BEGIN " + " ".join(f"INSERT INTO flink_m_{name} VALUES {values};"
                                                            for name in MATRIX) + " END;")
        for name in MATRIX:
            spark.sql(f"INSERT INTO paimon.default.ours_m_{name} VALUES {values}")

    def every(query: str) -> str:
        return " UNION ALL ".join(query.format(t=t) for t in tables)

    def both_read_alike(when: str) -> list[tuple]:
        by_flink = flink.rows(every("SELECT '{t}', id, s, n FROM {t}"))
        assert ours(spark, every("SELECT '{t}', id, s, n FROM paimon.default.{t}")) == by_flink, when
        return by_flink

    rows = both_read_alike("as written")
    expected = {"dedup": {(1, "a3", None), (2, "b3", 20), (3, "c2", None), (4, "d", 4)},
                "pu": {(1, "a3", 10), (2, "b3", 20), (3, "c2", 3), (4, "d", 4)},
                "agg": {(1, "a3", 11), (2, "b3", 22), (3, "c2", 3), (4, "d", 4)},
                "first": {(1, "a", 1), (2, "b", 2), (3, "c", 3), (4, "d", 4)}}
    for t in tables:
        assert {r[1:] for r in rows if r[0] == t} == expected[t.split("_")[2]], t
    # Java's batch scan of a table with deletion vectors skips level 0, where changelog files are: there the
    # changes are compared by the test of streams below.
    logged = [t for t in tables if not t.endswith(("_none", "_dv"))]
    latest = dict(tuple(r) for r in spark.sql(" UNION ALL ".join(
        f"SELECT '{t}', max(snapshot_id) FROM paimon.default.`{t}$snapshots`" for t in logged)).collect())
    by_flink = flink.rows(" UNION ALL ".join(
        f"SELECT '{t}', * FROM `{t}$audit_log` /*+ OPTIONS('incremental-between' = '0,{latest[t]}') */" for t in logged))
    by_us = ours(spark, " UNION ALL ".join(f"SELECT '{t}', * FROM paimon.default.`{t}$audit_log` "
                                           f"WITH ('incremental-between' = '0,{latest[t]}')" for t in logged))
    assert Counter(by_us) == Counter(by_flink)
    assert {r[0] for r in by_us} == set(logged)
    flink.run("CALL sys.compact_database(including_databases => 'default', including_tables => 'default\\.ours_m_.*', "
              "compact_strategy => 'full');")
    assert last_commits(spark, [f"ours_m_{name}" for name in MATRIX]) == {"COMPACT"}
    for name in MATRIX:
        spark.sql(f"CALL paimon.sys.compact(table => 'default.flink_m_{name}')")
    assert both_read_alike("compacted by the other") == rows


def test_flinks_streaming_changelog_of_our_table_is_ours(spark, flink):
    spark.sql("CREATE TABLE paimon.default.streamed (id INT, v STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '2', 'changelog-producer' = 'lookup')")
    for values in ["(1, 'a', 1), (2, 'b', 2), (3, 'c', 3)", "(1, 'a2', 10), (4, 'd', 4)", "(2, 'b2', 20)"]:
        spark.sql(f"INSERT INTO paimon.default.streamed VALUES {values}")
    spark.sql("DELETE FROM paimon.default.streamed WHERE id = 3")
    latest = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`streamed$snapshots`").first()[0]
    our_changes = sorted(((r[0], r[1], r[2], r[3]) for r in spark.sql(
        "SELECT rowkind, id, v, n FROM paimon.default.`streamed$audit_log` "
        f"WITH ('incremental-between' = '0,{latest}')").collect()), key=repr)
    flinks = flink.changes("SELECT * FROM streamed /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1', "
                           "'continuous.discovery-interval' = '100 ms') */", count=len(our_changes))
    assert Counter(flinks) == Counter(our_changes)
    assert {k for k, *_ in our_changes} == {"+I", "-U", "+U", "-D"}


def test_dynamic_buckets_schema_changes_and_tags_cross_both_ways(spark, flink):
    flink.run("CREATE TABLE dyn (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '-1');")
    flink.run("INSERT INTO dyn VALUES (1, 'f1'), (2, 'f2');")
    spark.sql("INSERT INTO paimon.default.dyn VALUES (2, 'o2'), (3, 'o3')")
    flink.run("ALTER TABLE dyn ADD n BIGINT;")
    flink.run("INSERT INTO dyn VALUES (4, 'f4', CAST(40 AS BIGINT));")
    flink.run("CALL sys.create_tag(`table` => 'default.dyn', tag => 'flinks');")
    spark.sql("ALTER TABLE paimon.default.dyn ADD COLUMN w STRING")
    spark.sql("INSERT INTO paimon.default.dyn VALUES (1, 'o1', 10, 'w1')")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.dyn', tag => 'ours')")
    want = [(1, "o1", 10, "w1"), (2, "o2", None, None), (3, "o3", None, None), (4, "f4", 40, None)]
    assert flink.rows("SELECT * FROM dyn") == want
    assert ours(spark, "SELECT * FROM paimon.default.dyn") == want
    tagged = [(1, "f1", None), (2, "o2", None), (3, "o3", None), (4, "f4", 40)]
    assert ours(spark, "SELECT * FROM paimon.default.dyn VERSION AS OF 'flinks'") == tagged
    # Flink plans a hinted read with the table's schema of now, not the tag's: the later column reads null.
    assert flink.rows("SELECT * FROM dyn /*+ OPTIONS('scan.tag-name' = 'flinks') */") == [r + (None,) for r in tagged]
    assert flink.rows("SELECT * FROM dyn /*+ OPTIONS('scan.tag-name' = 'ours') */") == want
