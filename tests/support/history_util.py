"""Helpers the table-history suites share: snapshot files, directory listings, pypaimon reads at a point in time."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from conftest import table_dir


@pytest.fixture(scope="module")
def utc(spark):
    """The session's time zone set to UTC while a module runs (import it, then use it as a fixture)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.unset("spark.sql.session.timeZone")


def call(spark, procedure: str, **args) -> list[tuple]:
    """`CALL paimon.sys.<procedure>(name => value, ...)`, its rows as tuples."""
    text = ", ".join(f"{k} => {v!r}" if isinstance(v, str) else f"{k} => {v}" for k, v in args.items())
    return [tuple(r) for r in spark.sql(f"CALL paimon.sys.{procedure}({text})").collect()]


def tag_names(warehouse: Path, name: str, db: str = "default") -> list[str]:
    """The tags of a table, by their files, sorted."""
    d = table_dir(warehouse, name, db) / "tag"
    return sorted(p.name[len("tag-"):] for p in d.glob("tag-*")) if d.exists() else []


def snapshot_dir(warehouse: Path, name: str, branch: str | None = None) -> Path:
    root = table_dir(warehouse, name)
    return (root / "branch" / f"branch-{branch}" / "snapshot") if branch else root / "snapshot"


def snapshot_ids(warehouse: Path, name: str, branch: str | None = None) -> list[int]:
    """The ids of the snapshot files on disk, ascending."""
    d = snapshot_dir(warehouse, name, branch)
    if not d.exists():
        return []
    return sorted(int(p.name.split("-", 1)[1]) for p in d.glob("snapshot-*"))


def snapshot_json(warehouse: Path, name: str, sid: int, branch: str | None = None) -> dict:
    return json.loads((snapshot_dir(warehouse, name, branch) / f"snapshot-{sid}").read_text())


def hint(warehouse: Path, name: str, which: str, branch: str | None = None) -> int | None:
    f = snapshot_dir(warehouse, name, branch) / which
    return int(f.read_text().strip()) if f.exists() else None


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` with its size and modification time: what 'nothing changed on disk' compares."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def data_files(root: Path) -> set[str]:
    """Data files on disk (`data-*.parquet` in bucket directories), relative to the table directory."""
    return {str(p.relative_to(root)) for p in root.rglob("data-*") if p.is_file() and "bucket-" in p.parent.name}


def manifest_files(root: Path) -> set[str]:
    d = root / "manifest"
    return {p.name for p in d.iterdir()} if d.exists() else set()


def read_all(table, columns: list[str] | None = None) -> list[tuple]:
    builder = table.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    return sorted((tuple(r.values()) if columns is None else tuple(r[c] for c in columns)) for r in data)


def oracle_rows_at(oracle, name: str, options: dict, columns: list[str] | None = None, db: str = "default"):
    """A table's rows as pypaimon reads them with time-travel (or branch) options."""
    return read_all(oracle.get_table(f"{db}.{name}").copy(options), columns)


def oracle_system_rows(oracle, name: str, db: str = "default") -> list[dict]:
    """A system table (`t$snapshots`, ...) as pypaimon reads it."""
    table = oracle.get_table(f"{db}.{name}")
    builder = table.new_read_builder()
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()


def utc_text(millis: int) -> str:
    """Epoch milliseconds as 'yyyy-MM-dd HH:mm:ss.SSS' in UTC."""
    t = dt.datetime.fromtimestamp(millis / 1000, tz=dt.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{millis % 1000:03d}"


def utc_seconds_text(millis: int) -> str:
    """Epoch milliseconds as 'yyyy-MM-dd HH:mm:ss' in UTC (truncated to the second)."""
    return dt.datetime.fromtimestamp(millis // 1000, tz=dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
