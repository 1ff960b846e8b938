"""Model-based check of every changelog producer and merge engine, in every data file format: random upserts, deletes
and compactions, then for every pair of settled snapshots the changes between them, applied to the earlier state, give
the later state, and (exact producers) every before image (-U, -D) is the row the key had."""

from __future__ import annotations

import random

import pytest

from conftest import rows

# Every producer, and every merge engine under lookup; full-compaction and first-row under lookup are held
# against Java's changelogs in the Scala ChangelogInteropSuite too.
# Each case writes its files in one of the data file formats, or mixes them by level: the model holds whatever the
# format (the Scala FileFormatInteropSuite holds each format's files against Java's reader).
ORC, AVRO, MIXED = ", 'file.format' = 'orc'", ", 'file.format' = 'avro'", ", 'file.format.per.level' = '0:avro,5:orc'"
CASES = [
    # (producer, merge engine, extra options, whether deletes are written)
    ("lookup", "deduplicate", ORC, True),
    ("lookup", "partial-update", ", 'partial-update.remove-record-on-delete' = 'true'" + AVRO, True),
    ("lookup", "aggregation", ", 'fields.v.aggregate-function' = 'sum'" + MIXED, False),
    ("lookup", "first-row", ", 'ignore-delete' = 'true'", False),
    ("full-compaction", "aggregation", ", 'fields.v.aggregate-function' = 'sum'" + ORC, False),
    ("input", "deduplicate", AVRO, True),
]
KEYS = 12
COMMITS = 6


def state_at(spark, name: str, sid: int) -> dict[int, tuple]:
    if sid == 0:
        return {}
    got = rows(spark.sql(f"SELECT id, v, w FROM paimon.default.{name} VERSION AS OF {sid}"))
    return {r[0]: r for r in got}


def changes(spark, name: str, start: int, end: int) -> list[tuple]:
    df = spark.read.option("incremental-between", f"{start},{end}").table(f"paimon.default.`{name}$audit_log`")
    return [tuple(r) for r in df.select("rowkind", "id", "v", "w").collect()]


@pytest.mark.parametrize("producer,engine,extra,deletes", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_changes_between_settled_snapshots_rebuild_the_later_state(spark, producer, engine, extra, deletes):
    name = f"model_{producer}_{engine}".replace("-", "_")
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v INT, w STRING, op STRING) TBLPROPERTIES "
              f"('primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = '{producer}', "
              f"'merge-engine' = '{engine}', 'rowkind.field' = 'op'{extra})")
    rng = random.Random(f"{producer}-{engine}")
    settled = [0]
    overwrites: set[int] = set()
    for commit in range(COMMITS):
        # One commit overwrites the table: its changes are in no changelog (Paimon's streams skip overwrites), so
        # replays stop at it; diffs compare states across it.
        overwrite = commit == 3
        keys = rng.sample(range(KEYS), rng.randint(1, 6))
        values = []
        for k in keys:
            if deletes and not overwrite and rng.random() < 0.25:
                values.append(f"({k}, NULL, NULL, '-D')")
            else:
                w = "NULL" if rng.random() < 0.3 else f"'w{commit}'"
                values.append(f"({k}, {rng.randint(1, 50)}, {w}, '+I')")
        verb = "INSERT OVERWRITE" if overwrite else "INSERT INTO"
        spark.sql(f"{verb} paimon.default.{name} VALUES {', '.join(values)}")
        if overwrite:
            overwrites.add(spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots` "
                                     "WHERE commit_kind = 'OVERWRITE'").first()[0])
        if rng.random() < 0.3:
            spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")
        snaps = spark.sql(f"SELECT snapshot_id, commit_kind FROM paimon.default.`{name}$snapshots`").collect()
        latest = max(r[0] for r in snaps)
        kinds = {r[0]: r[1] for r in snaps}
        # A lookup or full-compaction table's write is settled once its compaction has turned the new files into
        # changelog.
        if producer in ("none", "input") or kinds[latest] == "COMPACT":
            settled.append(latest)
    assert len(settled) >= 4, settled
    states = {sid: state_at(spark, name, sid) for sid in settled}
    exact = producer in ("lookup", "full-compaction")
    steps = {(a, b): changes(spark, name, a, b) for a, b in zip(settled, settled[1:])}

    def replay(start: int, end: int) -> dict[int, tuple]:
        state = dict(states[start])
        for a, b in zip(settled, settled[1:]):
            if start <= a and b <= end:
                # Within one commit a key's retraction comes before its new version.
                for kind, k, v, w in sorted(steps[(a, b)], key=lambda r: (r[1], r[0] in ("+I", "+U"))):
                    if kind in ("-U", "-D"):
                        if exact:
                            assert state.get(k) == (k, v, w), (name, a, b, kind, k, state.get(k))
                        state.pop(k, None)
                    else:
                        if exact:
                            assert k not in state, (name, a, b, kind, k)
                        state[k] = (k, v, w)
        return state

    for i, start in enumerate(settled):
        for end in settled[i + 1:]:
            if not any(start < o <= end for o in overwrites):
                assert replay(start, end) == states[end], (name, start, end)
    check_diffs(spark, name, latest, states)
    # A range read holds exactly the changes of the commits in it.
    middle = settled[len(settled) // 2]
    for start, end in [(settled[0], settled[-1]), (settled[0], middle), (middle, settled[-1])]:
        expected = [r for (a, b), rs in steps.items() if start <= a and b <= end for r in rs]
        assert sorted(changes(spark, name, start, end), key=str) == sorted(expected, key=str), (name, start, end)
    # Spark's changelog API, through the SQL clause and the DataFrame reader, gives the same changes as change types.
    spark_types = {"+I": "insert", "-U": "update_preimage", "+U": "update_postimage", "-D": "delete"}
    for start, end, df in [
        (settled[0], middle, spark.sql(f"SELECT * FROM paimon.default.{name} CHANGES FROM VERSION {settled[0] + 1} "
                                       f"TO VERSION {middle}")),
        (middle, settled[-1], spark.read.option("startingVersion", middle + 1).option("endingVersion", settled[-1])
         .changes(f"paimon.default.{name}"))]:
        got = [tuple(r) for r in df.select("_change_type", "id", "v", "w").collect()]
        expected = [(spark_types[k], i, v, w) for (a, b), rs in steps.items() if start <= a and b <= end
                    for k, i, v, w in rs]
        assert sorted(got, key=str) == sorted(expected, key=str), (name, start, end)


def check_diffs(spark, name: str, latest: int, known: dict[int, dict[int, tuple]]) -> None:
    """Diff reads (`incremental-between-scan-mode` = diff) compare two states, settled or not: each -U/-D is the
    earlier state's row, each +I a key it lacks, and applying them gives the later state. `known`: states read
    already, by snapshot id (each other state is read once)."""
    ids = list(range(latest + 1))
    pairs = list(zip(ids, ids[1:]))[::3] + [(0, latest), (ids[len(ids) // 2], latest)]

    def state_of(sid: int) -> dict[int, tuple]:
        if sid not in known:
            known[sid] = state_at(spark, name, sid)
        return known[sid]

    for start, end in pairs:
        before, after = state_of(start), state_of(end)
        df = spark.read.option("incremental-between", f"{start},{end}").option("incremental-between-scan-mode", "diff")
        got = [tuple(r) for r in df.table(f"paimon.default.`{name}$audit_log`").select("rowkind", "id", "v", "w").collect()]
        state = dict(before)
        for kind, k, v, w in sorted(got, key=lambda r: (r[1], r[0] in ("+I", "+U"))):
            if kind in ("-U", "-D"):
                assert state.pop(k, None) == (k, v, w), (name, start, end, kind, k)
            else:
                assert k not in state and (kind == "+U") == (k in before), (name, start, end, kind, k)
                state[k] = (k, v, w)
        assert state == after, (name, start, end)
        plain = rows(df.table(f"paimon.default.{name}").select("id", "v", "w"))
        assert plain == sorted(r for k, r in after.items() if before.get(k) != r), (name, start, end)
