"""Every engine error reaches Python as its own PaimonError subclass, chosen by the JVM class (never by
message text), carrying the engine's message and the value it is about; with a classic and with a
Spark Connect session."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import table_dir
from paimon_spark import (
    BranchNotFoundError,
    CommitConflictError,
    CorruptFileError,
    InvalidDataError,
    InvalidIdentifierError,
    InvalidOptionError,
    PaimonError,
    PaimonTable,
    SchemaChangeError,
    SchemaMismatchError,
    SnapshotNotFoundError,
    TableNotFoundError,
    TagNotFoundError,
    UnsupportedFeatureError,
    VersionAlreadyExistsError,
    VersionNotFoundError,
)
from sessions import mode, spark, warehouse  # noqa: F401 - the classic and Connect session fixtures


@pytest.fixture(scope="module")
def keyed(spark):
    """`err_keyed (id, v)`, keyed by id, one snapshot and the tag `t1`."""
    t = PaimonTable.create(spark).name("paimon.default.err_keyed").column("id", "INT").column("v", "STRING") \
        .primary_key("id").option("bucket", 1).execute()
    t.upsert(spark.createDataFrame([(1, "a")], "id INT, v STRING"))
    t.create_tag("t1")
    return t


def renamed_then_streamed(spark, t: PaimonTable, tmp_path: Path) -> None:
    """A stream over snapshot 1 (column `v`) read after `v` became `w`: the stream stops, naming `w`."""
    t.upsert(spark.createDataFrame([(1, "a")], "id INT, v STRING"))
    t.rename_column("v", "w")
    query = (t.stream_changes(start_version=1).writeStream.format("noop")
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    query.awaitTermination()


def corrupt_snapshot(spark, t: PaimonTable, warehouse: Path) -> str:
    t.upsert(spark.createDataFrame([(1, "a")], "id INT, v STRING"))
    snapshot = table_dir(warehouse, "err_corrupt") / "snapshot" / "snapshot-1"
    snapshot.write_text('{"version": 3, "id": 1, "schemaId"')
    return str(snapshot)


def test_table_not_found(spark, tmp_path):
    missing = str(tmp_path / "nothing")
    with pytest.raises(TableNotFoundError) as e:  # raised by the engine
        spark.read.format("paimon").load(missing).collect()
    assert e.value.value == missing and missing in str(e.value)
    with pytest.raises(TableNotFoundError) as e:  # raised before any call on a table that is not there
        PaimonTable.for_path(spark, missing)
    assert e.value.value == missing
    with pytest.raises(TableNotFoundError) as e:
        PaimonTable.for_name(spark, "paimon.default.err_none")
    assert e.value.value == "paimon.default.err_none"


CASES: dict[str, tuple[type[PaimonError], Callable, str]] = {
    "snapshot": (SnapshotNotFoundError, lambda s, t: t.read(version=99).collect(), "99"),
    "tag": (TagNotFoundError, lambda s, t: t.read(tag="nope").collect(), "nope"),
    "branch": (BranchNotFoundError, lambda s, t: s.table("paimon.default.`err_keyed$branch_nope`").collect(), "nope"),
    "tag taken": (VersionAlreadyExistsError, lambda s, t: t.create_tag("t1"), "t1"),
    "option": (InvalidOptionError, lambda s, t: t.set_options(bukcet=1), "bukcet"),
    "feature": (UnsupportedFeatureError, lambda s, t: t.set_options(**{"changelog-file.stats-mode": "full"}),
                "changelog-file.stats-mode"),
    "system table": (InvalidIdentifierError, lambda s, t: s.table("paimon.default.`err_keyed$nosuch`").collect(),
                     "nosuch"),
    "key assigned": (InvalidDataError, lambda s, t: t.update("id = 1", {"id": "2"}), "id"),
    "key column": (SchemaChangeError, lambda s, t: t.drop_column("id"), "id"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_engine_errors_arrive_typed_with_their_value(spark, keyed, case):
    error, call, value = CASES[case]
    with pytest.raises(error) as e:
        call(spark, keyed)
    assert e.value.value == value, str(e.value)
    assert isinstance(e.value, PaimonError) and str(e.value).strip()
    if error in (SnapshotNotFoundError, TagNotFoundError, BranchNotFoundError):
        assert isinstance(e.value, VersionNotFoundError)
    assert keyed.latest_snapshot_id() == 1 and keyed.to_df().count() == 1  # nothing was written


def test_commit_conflict_on_a_path_that_holds_a_table(spark, tmp_path):
    path = str(tmp_path / "taken")
    df = spark.createDataFrame([(1,)], "id INT")
    df.write.format("paimon").save(path)
    with pytest.raises(CommitConflictError, match="already holds a Paimon table") as e:
        df.write.format("paimon").mode("error").save(path)
    assert e.value.value == path


def test_schema_mismatch_stops_a_stream(spark, tmp_path):
    t = PaimonTable.create(spark).name("paimon.default.err_stream").column("id", "INT").column("v", "STRING") \
        .primary_key("id").option("bucket", 1).execute()
    with pytest.raises(SchemaMismatchError, match="names it 'v'") as e:
        renamed_then_streamed(spark, t, tmp_path)
    assert e.value.value == "w"


def test_corrupt_file(spark, warehouse):
    t = PaimonTable.create(spark).name("paimon.default.err_corrupt").column("id", "INT").column("v", "STRING") \
        .primary_key("id").option("bucket", 1).execute()
    snapshot = corrupt_snapshot(spark, t, warehouse)
    with pytest.raises(CorruptFileError) as e:
        t.to_df().collect()
    assert e.value.value.endswith("snapshot/snapshot-1") and snapshot.endswith("snapshot-1")
