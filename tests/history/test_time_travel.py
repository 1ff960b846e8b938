"""Time travel: every snapshot of append and primary-key tables, named every way Spark and Paimon name one
(VERSION AS OF, TIMESTAMP AS OF, scan.* read options, path reads, both catalogs), equals a model of the rows at
that snapshot and pypaimon's read of the same snapshot."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from conftest import rows, table_dir
from history_util import listing, oracle_rows_at, snapshot_ids, snapshot_json
from paimon_spark import InvalidOptionError, PaimonError, VersionNotFoundError

# A zone that is neither the JVM's (UTC here) nor a whole number of hours from it: a timestamp read in the
# wrong zone misses by 5.5 hours, which no snapshot in these tests is near.
ZONE = "Asia/Kolkata"


@pytest.fixture(scope="module", autouse=True)
def session_zone(spark):
    spark.conf.set("spark.sql.session.timeZone", ZONE)
    yield
    spark.conf.unset("spark.sql.session.timeZone")


def local_text(millis: int) -> str:
    """Epoch milliseconds as 'yyyy-MM-dd HH:mm:ss.SSS' wall-clock time in the session zone."""
    t = dt.datetime.fromtimestamp(millis / 1000, tz=ZoneInfo(ZONE))
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{millis % 1000:03d}"


class History:
    """The rows a table should hold at each of its snapshots, recorded as commits are made."""

    def __init__(self, spark, warehouse, name):
        self.spark, self.warehouse, self.name = spark, warehouse, name
        self.states: dict[int, list[tuple]] = {}
        self.kinds: dict[int, str] = {}

    def commit(self, sql: str, state: list[tuple]) -> list[int]:
        """Runs a write; every snapshot it makes (its own and an inline compaction's) holds `state`."""
        before = set(snapshot_ids(self.warehouse, self.name))
        self.spark.sql(sql)
        new = [i for i in snapshot_ids(self.warehouse, self.name) if i not in before]
        assert new, f"{sql} made no snapshot"
        for i in new:
            self.states[i] = sorted(state)
            self.kinds[i] = snapshot_json(self.warehouse, self.name, i)["commitKind"]
        return new

    def millis(self, sid: int) -> int:
        return snapshot_json(self.warehouse, self.name, sid)["timeMillis"]


def build_append_table(spark, warehouse) -> History:
    spark.sql("CREATE TABLE paimon.default.tt_append (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    h = History(spark, warehouse, "tt_append")
    state = [(1, "a1", "a"), (2, "b1", "b")]
    h.commit("INSERT INTO paimon.default.tt_append VALUES (1, 'a1', 'a'), (2, 'b1', 'b')", state)
    state += [(3, "a2", "a"), (4, "c1", "c")]
    h.commit("INSERT INTO paimon.default.tt_append VALUES (3, 'a2', 'a'), (4, 'c1', 'c')", state)
    state = [r for r in state if r[2] != "a"] + [(5, "a3", "a")]
    h.commit("INSERT OVERWRITE paimon.default.tt_append PARTITION (p = 'a') VALUES (5, 'a3')", state)
    state += [(6, "b2", "b")]
    h.commit("INSERT INTO paimon.default.tt_append VALUES (6, 'b2', 'b')", state)
    return h


@pytest.fixture(scope="module")
def append_history(spark, warehouse):
    h = build_append_table(spark, warehouse)
    for sid in h.states:
        spark.sql(f"CALL paimon.sys.create_tag(table => 'default.tt_append', tag => 'at_{sid}', snapshot => {sid})")
    return h


def test_append_table_history_is_four_distinct_snapshots(append_history, warehouse):
    assert sorted(append_history.states) == [1, 2, 3, 4]
    assert [append_history.kinds[i] for i in range(1, 5)] == ["APPEND", "APPEND", "OVERWRITE", "APPEND"]
    # Every snapshot differs from the one before it, so a read of the wrong snapshot cannot pass.
    states = [append_history.states[i] for i in range(1, 5)]
    assert all(a != b for a, b in zip(states, states[1:]))


@pytest.mark.parametrize("sid", [1, 2, 3, 4])
def test_every_snapshot_of_an_append_table_by_every_reference(spark, oracle, warehouse, append_history, sid):
    h, name = append_history, "paimon.default.tt_append"
    expected = h.states[sid]
    millis = h.millis(sid)
    def read(key, value):  # a new reader each time: a DataFrameReader keeps the options it was given
        return spark.read.option(key, value).table(name)

    by = {
        "VERSION AS OF n": spark.sql(f"SELECT * FROM {name} VERSION AS OF {sid}"),
        "VERSION AS OF 'tag'": spark.sql(f"SELECT * FROM {name} VERSION AS OF 'at_{sid}'"),
        "TIMESTAMP AS OF": spark.sql(f"SELECT * FROM {name} TIMESTAMP AS OF '{local_text(millis)}'"),
        "TIMESTAMP AS OF expr": spark.sql(
            f"SELECT * FROM {name} TIMESTAMP AS OF timestamp_millis({millis})"),
        "scan.snapshot-id": read("scan.snapshot-id", str(sid)),
        "scan.version id": read("scan.version", str(sid)),
        "scan.version tag": read("scan.version", f"at_{sid}"),
        "scan.tag-name": read("scan.tag-name", f"at_{sid}"),
        "scan.timestamp-millis": read("scan.timestamp-millis", str(millis)),
        "scan.timestamp": read("scan.timestamp", local_text(millis)),
        "versionAsOf": read("versionAsOf", str(sid)),
        "timestampAsOf": read("timestampAsOf", local_text(millis)),
    }
    path = str(table_dir(warehouse, "tt_append"))
    for key, value in [("scan.snapshot-id", str(sid)), ("scan.tag-name", f"at_{sid}"),
                       ("scan.timestamp-millis", str(millis)), ("scan.timestamp", local_text(millis)),
                       ("scan.version", str(sid))]:
        by[f"path {key}"] = spark.read.format("paimon").option(key, value).load(path)
    by["paimon_path VERSION AS OF n"] = spark.sql(f"SELECT * FROM paimon_path.`{path}` VERSION AS OF {sid}")
    by["paimon_path VERSION AS OF 'tag'"] = spark.sql(f"SELECT * FROM paimon_path.`{path}` VERSION AS OF 'at_{sid}'")
    got = {k: rows(df.select("id", "v", "p")) for k, df in by.items()}
    assert got == {k: expected for k in by}
    for options in [{"scan.snapshot-id": str(sid)}, {"scan.tag-name": f"at_{sid}"},
                    {"scan.timestamp-millis": str(millis)}]:
        assert oracle_rows_at(oracle, "tt_append", options, ["id", "v", "p"]) == expected, options


def test_timestamps_between_and_after_snapshots(spark, oracle, append_history):
    h, name = append_history, "paimon.default.tt_append"
    for sid in (1, 2, 3):
        # Just before the next commit still reads this snapshot; the next commit's own time reads the next one.
        before_next = h.millis(sid + 1) - 1
        assert before_next >= h.millis(sid)
        assert rows(spark.read.option("scan.timestamp-millis", str(before_next)).table(name)) == h.states[sid]
        assert rows(spark.sql(f"SELECT * FROM {name} TIMESTAMP AS OF '{local_text(before_next)}'")) == h.states[sid]
        assert oracle_rows_at(oracle, "tt_append", {"scan.timestamp-millis": str(before_next)}) == h.states[sid]
    far_future = h.millis(4) + 10 * 365 * 86400 * 1000
    assert rows(spark.read.option("scan.timestamp-millis", str(far_future)).table(name)) == h.states[4]
    # A date alone is its midnight in the session zone; snapshots were all committed after today's.
    tomorrow = (dt.datetime.now(ZoneInfo(ZONE)) + dt.timedelta(days=1)).strftime("%Y-%m-%d")
    assert rows(spark.read.option("scan.timestamp", tomorrow).table(name)) == h.states[4]


def test_projection_filters_and_partition_pruning_at_a_past_snapshot(spark, append_history):
    h, name = append_history, "paimon.default.tt_append"
    # Snapshot 2 still has partition a's first two rows; snapshot 3 overwrote them.
    assert rows(spark.sql(f"SELECT v FROM {name} VERSION AS OF 2 WHERE p = 'a'")) == [("a1",), ("a2",)]
    assert rows(spark.sql(f"SELECT v FROM {name} VERSION AS OF 3 WHERE p = 'a'")) == [("a3",)]
    assert rows(spark.sql(f"SELECT id FROM {name} VERSION AS OF 2 WHERE id >= 2 AND p <> 'c'")) == [(2,), (3,)]
    assert rows(spark.sql(f"SELECT p, count(*) FROM {name} VERSION AS OF 4 GROUP BY p")) == [
        ("a", 1), ("b", 2), ("c", 1)]
    # Partition c does not exist at snapshot 1.
    assert rows(spark.sql(f"SELECT * FROM {name} VERSION AS OF 1 WHERE p = 'c'")) == []
    # The partition filter reaches the scan of the past snapshot.
    query = spark.sql(f"SELECT v FROM {name} VERSION AS OF 2 WHERE p = 'a'")
    plan = query._jdf.queryExecution().executedPlan().toString()
    assert "PaimonScan" in plan and "EqualTo(p,a)" in plan, plan
    # Versions compose with joins and unions of the same table.
    joined = spark.sql(f"SELECT o.id, n.id FROM {name} VERSION AS OF 2 o FULL JOIN {name} VERSION AS OF 4 n "
                       f"ON o.id = n.id WHERE o.id IS NULL OR n.id IS NULL")
    assert rows(joined) == [(1, None), (3, None), (None, 5), (None, 6)]


def test_all_digit_tag_name_wins_over_the_snapshot_id(spark, append_history):
    """As Paimon's scan.version: a tag of that name first, then the snapshot id."""
    h, name = append_history, "paimon.default.tt_append"
    spark.sql("CALL paimon.sys.create_tag(table => 'default.tt_append', tag => '2', snapshot => 4)")
    try:
        assert rows(spark.sql(f"SELECT * FROM {name} VERSION AS OF 2")) == h.states[4]
        assert rows(spark.read.option("scan.version", "2").table(name)) == h.states[4]
        # scan.snapshot-id names the snapshot, whatever the tags are called.
        assert rows(spark.read.option("scan.snapshot-id", "2").table(name)) == h.states[2]
    finally:
        spark.sql("CALL paimon.sys.delete_tag(table => 'default.tt_append', tag => '2')")
    assert rows(spark.sql(f"SELECT * FROM {name} VERSION AS OF 2")) == h.states[2]


# Primary-key tables, one per merge engine, each written in batches of rows.
PK_CASES = {
    "deduplicate": dict(
        ddl="(dt STRING, id INT, v STRING, op STRING) PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = 'dt,id', "
            "'bucket' = '2', 'rowkind.field' = 'op')",
        batches=[
            [("a", 1, "x1", "+I"), ("a", 2, "x2", "+I"), ("b", 1, "y1", "+I")],
            [("a", 1, "x1b", "+U"), ("b", 2, "y2", "+I")],
            [("a", 2, None, "-D"), ("b", 1, "y1c", "+I"), ("c", 9, "z", "+I")],
            [("a", 2, "x2d", "+I"), ("c", 9, None, "-D")],
        ],
    ),
    "partial-update": dict(
        ddl="(id INT, name STRING, city STRING, age INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
            "'merge-engine' = 'partial-update')",
        batches=[
            [(1, "ann", None, None), (2, "bob", "rome", 30)],
            [(1, None, "oslo", None), (3, "cid", None, 7)],
            [(1, None, None, 41), (2, "bobby", None, None)],
            [(3, None, "kyiv", None), (2, None, "milan", 31)],
        ],
    ),
    "aggregation": dict(
        ddl="(g STRING, id INT, total BIGINT, hi INT) PARTITIONED BY (g) TBLPROPERTIES ('primary-key' = 'g,id', "
            "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.total.aggregate-function' = 'sum', "
            "'fields.hi.aggregate-function' = 'max')",
        batches=[
            [("g1", 1, 10, 3), ("g1", 2, 1, 1), ("g2", 1, 5, 5)],
            [("g1", 1, 5, 7), ("g2", 1, -5, 2)],
            [("g1", 1, 100, 1), ("g2", 2, 2, 2)],
            [("g1", 2, 1, 9), ("g2", 1, 0, 6)],
        ],
    ),
    "first-row": dict(
        # write-only: no inline compaction, so each write's snapshot and the CALL's compaction are apart.
        ddl="(id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'merge-engine' = 'first-row', "
            "'write-only' = 'true')",
        batches=[
            [(1, "first"), (2, "first")],
            [(1, "second"), (3, "second")],
            [(2, "third"), (3, "third"), (4, "third")],
        ],
    ),
}


def sql_value(v):
    if v is None:
        return "NULL"
    return f"'{v}'" if isinstance(v, str) else str(v)


def apply(engine, state, batch):
    """The merge engine's result of `batch` on top of `state` (key -> row)."""
    for r in batch:
        if engine == "deduplicate":
            key = r[:2]
            if r[3] == "-D":
                state.pop(key, None)
            else:
                state[key] = r
        elif engine == "partial-update":
            old = state.get(r[0], (r[0], None, None, None))
            state[r[0]] = tuple(n if n is not None else o for o, n in zip(old, r))
        elif engine == "aggregation":
            key = r[:2]
            old = state.get(key)
            state[key] = r if old is None else (r[0], r[1], old[2] + r[2], max(old[3], r[3]))
        elif engine == "first-row":
            state.setdefault(r[0], r)
    return state


@pytest.fixture(scope="module")
def pk_histories(spark, warehouse):
    out = {}
    for engine, case in PK_CASES.items():
        name = "tt_" + engine.replace("-", "_")
        spark.sql(f"CREATE TABLE paimon.default.{name} {case['ddl']}")
        h = History(spark, warehouse, name)
        state: dict = {}
        compacted: list[tuple] = []
        for batch in case["batches"]:
            state = apply(engine, state, batch)
            values = ", ".join("(" + ", ".join(sql_value(v) for v in r) + ")" for r in batch)
            if engine == "first-row":
                # First-row shows only compacted rows: the write's snapshot still shows the last compaction's.
                for sid in h.commit(f"INSERT INTO paimon.default.{name} VALUES {values}", compacted):
                    assert h.kinds[sid] == "APPEND"
                compacted = sorted(state.values())
                new = h.commit(f"CALL paimon.sys.compact(table => 'default.{name}')", compacted)
                assert [h.kinds[i] for i in new] == ["COMPACT"]
            else:
                h.commit(f"INSERT INTO paimon.default.{name} VALUES {values}", sorted(state.values()))
        out[engine] = (name, h)
    return out


@pytest.mark.parametrize("engine", list(PK_CASES))
def test_every_snapshot_of_a_primary_key_table(spark, oracle, warehouse, pk_histories, engine):
    name, h = pk_histories[engine]
    columns = [c.split()[0] for c in PK_CASES[engine]["ddl"].split(")")[0].strip("(").split(", ")]
    assert len(h.states) >= len(PK_CASES[engine]["batches"])
    distinct = {tuple(s) for s in h.states.values()}
    assert len(distinct) >= len(PK_CASES[engine]["batches"]), "the history must change at every write"
    path = str(table_dir(warehouse, name))
    full = f"paimon.default.{name}"
    for sid, expected in sorted(h.states.items()):
        millis = h.millis(sid)
        got = {
            "VERSION AS OF": rows(spark.sql(f"SELECT * FROM {full} VERSION AS OF {sid}").select(*columns)),
            "scan.snapshot-id": rows(spark.read.option("scan.snapshot-id", str(sid)).table(full).select(*columns)),
            "TIMESTAMP AS OF": rows(spark.sql(f"SELECT * FROM {full} TIMESTAMP AS OF '{local_text(millis)}'")
                                    .select(*columns)),
            "path scan.timestamp-millis": rows(spark.read.format("paimon").option("scan.timestamp-millis", str(millis))
                                               .load(path).select(*columns)),
            "pypaimon scan.snapshot-id": oracle_rows_at(oracle, name, {"scan.snapshot-id": str(sid)}, columns),
        }
        assert got == {k: expected for k in got}, f"snapshot {sid} ({h.kinds[sid]})"
    latest = max(h.states)
    assert rows(spark.table(full).select(*columns)) == h.states[latest]


def test_value_filter_at_a_past_snapshot_sees_only_that_snapshots_versions(spark, pk_histories):
    """A filter on a non-key column of a primary-key table must be applied after merging, at any snapshot."""
    name, h = pk_histories["deduplicate"]
    full = f"paimon.default.{name}"
    # Key (a, 1) holds x1 at snapshot 1 and x1b from snapshot 2 on; key (b, 1) holds y1, then y1c.
    first = min(h.states)
    later = max(h.states)
    assert rows(spark.sql(f"SELECT dt, id FROM {full} VERSION AS OF {first} WHERE v = 'x1'")) == [("a", 1)]
    assert rows(spark.sql(f"SELECT dt, id FROM {full} VERSION AS OF {later} WHERE v = 'x1'")) == []
    assert rows(spark.sql(f"SELECT v FROM {full} VERSION AS OF {later} WHERE v LIKE 'y%'")) == [("y1c",), ("y2",)]
    # A key deleted at one snapshot and written again at a later one.
    deleted_at = [s for s, st in sorted(h.states.items()) if not any(r[:2] == ("a", 2) for r in st)]
    assert deleted_at, "key (a, 2) is deleted at some snapshot"
    assert rows(spark.sql(f"SELECT v FROM {full} VERSION AS OF {deleted_at[0]} WHERE dt = 'a' AND id = 2")) == []
    assert rows(spark.sql(f"SELECT v FROM {full} VERSION AS OF {later} WHERE dt = 'a' AND id = 2")) == [("x2d",)]


def test_session_catalog_tables_travel_too(spark, oracle, warehouse):
    spark.sql("CREATE TABLE tt_session (id INT, v STRING) USING paimon")
    h = History(spark, warehouse, "tt_session")
    h.commit("INSERT INTO tt_session VALUES (1, 'one')", [(1, "one")])
    h.commit("INSERT INTO tt_session VALUES (2, 'two')", [(1, "one"), (2, "two")])
    h.commit("INSERT OVERWRITE tt_session VALUES (3, 'three')", [(3, "three")])
    spark.sql("CALL spark_catalog.sys.create_tag(table => 'default.tt_session', tag => 'second', snapshot => 2)")
    for sid in (1, 2, 3):
        millis = h.millis(sid)
        expected = h.states[sid]
        assert rows(spark.sql(f"SELECT * FROM tt_session VERSION AS OF {sid}")) == expected
        assert rows(spark.sql(f"SELECT * FROM spark_catalog.default.tt_session VERSION AS OF {sid}")) == expected
        assert rows(spark.sql(f"SELECT * FROM tt_session TIMESTAMP AS OF '{local_text(millis)}'")) == expected
        assert rows(spark.read.option("scan.snapshot-id", str(sid)).table("tt_session")) == expected
        assert rows(spark.read.option("scan.timestamp", local_text(millis)).table("spark_catalog.default.tt_session")) \
            == expected
        assert oracle_rows_at(oracle, "tt_session", {"scan.snapshot-id": str(sid)}) == expected
    assert rows(spark.sql("SELECT * FROM tt_session VERSION AS OF 'second'")) == h.states[2]
    assert rows(spark.read.option("scan.tag-name", "second").table("tt_session")) == h.states[2]
    assert oracle_rows_at(oracle, "tt_session", {"scan.tag-name": "second"}) == h.states[2]
    # The same table through the paimon catalog sees the same history.
    assert rows(spark.sql("SELECT * FROM paimon.default.tt_session VERSION AS OF 'second'")) == h.states[2]
    spark.sql("DROP TABLE tt_session")


def test_missing_points_in_history_name_what_the_table_holds(spark, warehouse, append_history):
    name = "paimon.default.tt_append"
    root = table_dir(warehouse, "tt_append")
    before = listing(root)
    with pytest.raises(VersionNotFoundError, match=r"snapshot 99\b.*1 to 4") as e:
        spark.sql(f"SELECT * FROM {name} VERSION AS OF 99").collect()
    assert "at_1" in str(e.value)
    with pytest.raises(VersionNotFoundError, match=r"snapshot 99\b.*1 to 4"):
        spark.read.option("scan.snapshot-id", "99").table(name).collect()
    with pytest.raises(VersionNotFoundError, match=r"snapshot 99\b.*1 to 4"):
        spark.read.format("paimon").option("scan.snapshot-id", "99").load(str(root)).collect()
    for read in (lambda: spark.sql(f"SELECT * FROM {name} VERSION AS OF 'nope'").collect(),
                 lambda: spark.read.option("scan.tag-name", "nope").table(name).collect(),
                 lambda: spark.read.format("paimon").option("scan.tag-name", "nope").load(str(root)).collect()):
        with pytest.raises(VersionNotFoundError, match="'nope'") as e:
            read()
        assert all(f"at_{i}" in str(e.value) for i in range(1, 5)), str(e.value)
    with pytest.raises(VersionNotFoundError, match="earliest") as e:
        spark.sql(f"SELECT * FROM {name} TIMESTAMP AS OF '2001-01-01 00:00:00'").collect()
    assert "2001-01-0" in str(e.value) or "2000-12-31" in str(e.value)
    with pytest.raises(VersionNotFoundError, match="earliest"):
        spark.read.option("scan.timestamp-millis", "1000").table(name).collect()
    with pytest.raises(VersionNotFoundError, match="earliest"):
        spark.read.format("paimon").option("scan.timestamp", "2001-01-01 00:00:00").load(str(root)).collect()
    assert listing(root) == before


def test_a_table_without_snapshots_has_no_history(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.tt_empty (id INT)")
    with pytest.raises(VersionNotFoundError, match="no snapshots"):
        spark.sql("SELECT * FROM paimon.default.tt_empty VERSION AS OF 1").collect()
    with pytest.raises(VersionNotFoundError, match="no snapshots"):
        spark.read.option("scan.timestamp-millis", "1000").table("paimon.default.tt_empty").collect()
    assert not (table_dir(warehouse, "tt_empty") / "snapshot").exists()


@pytest.mark.parametrize("options, offending", [
    ({"scan.snapshot-id": "two"}, "scan.snapshot-id"),
    ({"scan.snapshot-id": "-1"}, "scan.snapshot-id"),
    ({"scan.timestamp-millis": "soon"}, "scan.timestamp-millis"),
    ({"scan.timestamp": "yesterday"}, "yesterday"),
    ({"scan.snapshot-id": "1", "scan.tag-name": "at_1"}, "scan.tag-name"),
])
def test_malformed_time_travel_options_are_refused(spark, warehouse, append_history, options, offending):
    root = table_dir(warehouse, "tt_append")
    before = listing(root)
    with pytest.raises(InvalidOptionError, match=offending):
        spark.read.options(**options).table("paimon.default.tt_append").collect()
    with pytest.raises(InvalidOptionError, match=offending):
        spark.read.format("paimon").options(**options).load(str(root)).collect()
    assert listing(root) == before


@pytest.mark.parametrize("option", ["scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.version"])
def test_writing_with_a_time_travel_option_is_refused(spark, warehouse, append_history, option):
    """Each option names snapshot 1, which exists: the write is refused for naming a point in history."""
    value = {"scan.snapshot-id": "1", "scan.tag-name": "at_1", "scan.version": "1",
             "scan.timestamp-millis": str(append_history.millis(1))}[option]
    root = table_dir(warehouse, "tt_append")
    before = listing(root)
    df = spark.createDataFrame([(7, "x", "a")], "id INT, v STRING, p STRING")
    with pytest.raises(PaimonError, match=option.replace(".", r"\.")):
        df.write.option(option, value).mode("append").saveAsTable("paimon.default.tt_append")
    with pytest.raises(PaimonError, match=option.replace(".", r"\.")):
        df.write.format("paimon").option(option, value).mode("append").save(str(root))
    with pytest.raises(PaimonError, match=option.replace(".", r"\.")):
        df.writeTo("paimon.default.tt_append").option(option, value).append()
    assert listing(root) == before
    assert snapshot_ids(warehouse, "tt_append") == [1, 2, 3, 4]


def test_session_options_travel_every_read_and_a_tables_own_win(spark):
    spark.sql("CREATE TABLE paimon.default.dyn (a INT)")
    for v in (1, 2, 3):
        spark.sql(f"INSERT INTO paimon.default.dyn VALUES ({v})")
    try:
        # Paimon's dynamic options: for every table, then for one table, which wins; the read's own win over both.
        spark.sql("SET `spark.paimon.scan.snapshot-id`=1")
        assert rows(spark.table("paimon.default.dyn")) == [(1,)]
        spark.conf.set("spark.paimon.paimon.default.dyn.scan.snapshot-id", "2")
        assert rows(spark.table("paimon.default.dyn")) == [(1,), (2,)]
        assert rows(spark.read.option("scan.snapshot-id", "3").table("paimon.default.dyn")) == [(1,), (2,), (3,)]
        spark.conf.unset("spark.paimon.paimon.default.dyn.scan.snapshot-id")
        # Checked like any read option: a malformed value is refused, never ignored.
        spark.conf.set("spark.paimon.scan.mode", "bogus")
        with pytest.raises(InvalidOptionError, match="scan.mode"):
            spark.table("paimon.default.dyn").collect()
    finally:
        for key in ("spark.paimon.scan.snapshot-id", "spark.paimon.scan.mode", "spark.paimon.paimon.default.dyn.scan.snapshot-id"):
            spark.conf.unset(key)
    assert rows(spark.table("paimon.default.dyn")) == [(1,), (2,), (3,)]
