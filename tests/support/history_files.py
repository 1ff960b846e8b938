"""What a table's history references on disk, read independently of both engines (JSON + fastavro).

Used by the history property and kill tests to check that no file a retained snapshot or tag needs
is missing and that no file nothing needs is left behind.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import fastavro

# Top-level table directories that name the history itself: never data or manifests.
METADATA_DIRS = {"snapshot", "schema", "tag", "branch", "consumer", "changelog"}

_manifest_cache: dict[str, list] = {}


def branch_dir(table: Path, branch: str) -> Path:
    return table if branch == "main" else table / "branch" / f"branch-{branch}"


def branches_on_disk(table: Path) -> list[str]:
    """Branches as Paimon lists them: `branch/branch-<b>` directories that hold a schema."""
    root = table / "branch"
    if not root.is_dir():
        return []
    return sorted(d.name[len("branch-"):] for d in root.iterdir()
                  if d.name.startswith("branch-") and any((d / "schema").glob("schema-*")))


def snapshot_ids(table: Path, branch: str = "main") -> list[int]:
    d = branch_dir(table, branch) / "snapshot"
    return sorted(int(p.name.split("-", 1)[1]) for p in d.glob("snapshot-*")) if d.is_dir() else []


def snapshot_json(table: Path, branch: str, snapshot_id: int) -> dict:
    return json.loads((branch_dir(table, branch) / "snapshot" / f"snapshot-{snapshot_id}").read_text())


def history(table: Path) -> list[tuple[str, str, dict]]:
    """(branch, 'snapshot-N' | 'tag-<name>', snapshot JSON) for every retained snapshot and tag of every branch."""
    out = []
    for b in ["main"] + branches_on_disk(table):
        d = branch_dir(table, b)
        for kind in ("snapshot", "tag"):
            sub = d / kind
            if sub.is_dir():
                for p in sorted(sub.glob(f"{kind}-*")):
                    out.append((b, p.name, json.loads(p.read_text())))
    return out


def _avro(path: Path) -> list:
    key = str(path)
    if key not in _manifest_cache:
        with open(path, "rb") as f:
            _manifest_cache[key] = list(fastavro.reader(f))
    return _manifest_cache[key]


def _partition_dir(partition: bytes, keys: list[str]) -> str:
    """The directory of a serialized BinaryRow of INT partition columns (4-byte arity, null bits, 8-byte slots)."""
    if not keys:
        return ""
    arity = struct.unpack_from(">i", partition, 0)[0]
    assert arity == len(keys)
    header = ((arity + 63 + 8) // 64) * 8
    parts = []
    for i, k in enumerate(keys):
        bit = i + 8
        assert not (partition[4 + bit // 8] >> (bit % 8)) & 1, "null partition values are not generated"
        parts.append(f"{k}={struct.unpack_from('<i', partition, 4 + header + 8 * i)[0]}")
    return "/".join(parts) + "/"


@dataclass
class References:
    """Files (relative to the table dir) the retained snapshots and tags of all branches reference."""
    metadata: set[str] = field(default_factory=set)   # manifest/<list or manifest>
    unreadable: set[str] = field(default_factory=set)  # referenced manifest lists or manifests that are gone
    live: set[str] = field(default_factory=set)       # data files live in some retained snapshot or tag
    mentioned: set[str] = field(default_factory=set)  # data files any of their manifest entries names


def snapshot_files(table: Path, snap: dict, partition_keys: list[str]) -> References:
    """What one snapshot (or tag) references."""
    refs = References()
    mdir = table / "manifest"
    assert snap.get("indexManifest") is None and snap.get("statistics") is None, "tables here have no index"
    lists = [snap["baseManifestList"], snap["deltaManifestList"]]
    if snap.get("changelogManifestList"):
        lists.append(snap["changelogManifestList"])
    live: dict[tuple, list[str]] = {}
    for i, lst in enumerate(lists):
        refs.metadata.add(f"manifest/{lst}")
        if not (mdir / lst).exists():
            refs.unreadable.add(f"manifest/{lst}")
            continue
        for meta in _avro(mdir / lst):
            refs.metadata.add(f"manifest/{meta['_FILE_NAME']}")
            if not (mdir / meta["_FILE_NAME"]).exists():
                refs.unreadable.add(f"manifest/{meta['_FILE_NAME']}")
                continue
            for e in _avro(mdir / meta["_FILE_NAME"]):
                f = e["_FILE"]
                assert f.get("_EXTERNAL_PATH") is None
                base = f"{_partition_dir(e['_PARTITION'], partition_keys)}bucket-{e['_BUCKET']}/"
                paths = [base + f["_FILE_NAME"]] + [base + x for x in (f.get("_EXTRA_FILES") or [])]
                refs.mentioned.update(paths)
                if i < 2:  # base and delta lists merge into the live files; changelog files are not data
                    key = (e["_PARTITION"], e["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"])
                    if e["_KIND"] == 0:
                        live[key] = paths
                    else:
                        live.pop(key, None)
    for paths in live.values():
        refs.live.update(paths)
    return refs


def references(table: Path, partition_keys: list[str]) -> References:
    """What the retained snapshots and tags of all branches reference, together."""
    refs = References()
    for _branch, _name, snap in history(table):
        one = snapshot_files(table, snap, partition_keys)
        refs.metadata |= one.metadata
        refs.unreadable |= one.unreadable
        refs.live |= one.live
        refs.mentioned |= one.mentioned
    return refs


def files_on_disk(table: Path) -> set[str]:
    """Every file under the table outside the history directories, relative to it."""
    out = set()
    for root, _dirs, files in os.walk(table):
        rel = os.path.relpath(root, table)
        if rel.split(os.sep)[0] in METADATA_DIRS:
            continue
        for f in files:
            out.add(os.path.normpath(os.path.join(rel, f)))
    return out


@dataclass
class FileCheck:
    missing: set[str]  # referenced (a live data file, a manifest or manifest list) but absent
    garbage: set[str]  # present but nothing retained references it
    orphans: set[str]  # what remove_orphan_files may remove: present and not even mentioned
    disk: set[str]     # every data and manifest file present


def check(table: Path, partition_keys: list[str]) -> FileCheck:
    refs = references(table, partition_keys)
    disk = files_on_disk(table)
    missing = (refs.metadata | refs.live) - disk
    assert refs.unreadable <= missing
    garbage = disk - refs.metadata - refs.live
    return FileCheck(missing, garbage, garbage - refs.mentioned, disk)


def backdate(table: Path, seconds: float) -> None:
    """Moves every file's modification time into the past, so orphan cleanup may consider all of them."""
    for root, _dirs, files in os.walk(table):
        for f in files:
            p = os.path.join(root, f)
            st = os.stat(p)
            os.utime(p, (st.st_atime - seconds, st.st_mtime - seconds))
