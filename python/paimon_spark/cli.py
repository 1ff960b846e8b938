"""``paimon-spark`` (``python -m paimon_spark``): a Paimon table's metadata from a terminal.

    paimon-spark info <path>       schema, keys, options, latest snapshot, live files
    paimon-spark history <path>    every retained snapshot
    paimon-spark files <path>      the live data files of the latest snapshot
    paimon-spark tags <path>       the tags
    paimon-spark fetch-jars s3     resolve the jars s3=True sessions load, once; print their paths

Each command reads the table's system tables through a local, single-core Spark session (the
engine reads metadata only, never data files) and prints an aligned table, or JSON with ``--json``.
A path that holds no Paimon table exits with status 2, as a usage error does. An ``s3a://`` or
``s3://`` path brings S3A along (as ``configure_spark_with_paimon(..., s3=True)`` does); its endpoint
and credentials are S3A's settings, given as ``--conf spark.hadoop.fs.s3a.endpoint=...`` (any Spark
setting may be), or found where S3A looks (``AWS_ACCESS_KEY_ID`` and the rest of AWS's chain).

``fetch-jars`` resolves a jar set (:mod:`paimon_spark.jar_sets`) into its folder unless it is there
already, and prints its jars comma-separated, as ``spark-submit --jars`` takes them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from paimon_spark import errors
from paimon_spark._conf import appended
from paimon_spark.jar_sets import NAMED
from paimon_spark.session import engine_jar, with_packages
from paimon_spark.version import __version__

NOT_A_TABLE = 2
FAILED = 1

# What each listing shows in a terminal; --json has every column of the system table.
_COLUMNS = {
    "history": ["snapshot_id", "schema_id", "commit_kind", "commit_time", "total_record_count",
                "delta_record_count", "changelog_record_count"],
    "files": ["partition", "bucket", "level", "record_count", "file_size_in_bytes", "file_path"],
    "tags": ["tag_name", "snapshot_id", "commit_time", "record_count", "create_time", "time_retained"],
}
_SYSTEM_TABLE = {"history": "snapshots", "files": "files", "tags": "tags"}
_S3_SCHEMES = {"s3", "s3a"}
_AZURE_SCHEMES = {"abfs", "abfss"}


class NotATableError(Exception):
    """The path holds no Paimon table."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paimon-spark", description="Show a Paimon table's metadata.")
    parser.add_argument("--version", action="version", version=f"paimon-spark {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    helps = {"info": "schema, keys, options, latest snapshot and live files", "history": "the retained snapshots",
             "files": "the data files of the latest snapshot", "tags": "the tags"}
    for name, text in helps.items():
        command = commands.add_parser(name, help=text, description=f"Show {text} of a Paimon table.")
        command.add_argument("path", help="the table's directory (a local path or a Hadoop URI)")
        command.add_argument("--json", action="store_true", help="print JSON instead of a table")
        command.add_argument("--verbose", action="store_true", help="keep the JVM's log output")
        command.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", type=_setting,
                             help="a Spark setting, as spark-submit's --conf (repeatable)")
    fetch = commands.add_parser("fetch-jars", help="resolve a jar set once and print its jars",
                                description="Resolve a set of Maven jars once (unless it was) and print its jars "
                                            "comma-separated, for spark-submit --jars.")
    fetch.add_argument("jar_set", choices=sorted(NAMED),
                       help="the set: s3 is what s3=True sessions load, jdbc the JDBC catalog's drivers")
    fetch.add_argument("--dir", type=Path, help="where sets are resolved (default: $PAIMON_SPARK_JARS_DIR, "
                                                "else ~/.cache/paimon-spark/jars)")
    return parser


def _setting(text: str) -> Tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key.strip(), value


def _location(path: str) -> str:
    """A local path made absolute; a URI (``scheme:...``) as given."""
    if ":" in path.split("/", 1)[0]:
        return path
    if not os.path.isdir(path):
        raise NotATableError(f"{path}: no such directory")
    return os.path.abspath(path)


@contextlib.contextmanager
def _jvm_output_hidden(hidden: bool) -> Iterator[None]:
    """The JVM inherits this process's stderr when it starts: pointing it at /dev/null for the start
    keeps Spark's start-up and log lines out of the command's output."""
    if not hidden:
        yield
        return
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _session(verbose: bool, location: str, conf: Sequence[Tuple[str, str]]) -> SparkSession:
    builder = SparkSession.builder
    for key, value in conf:
        builder = builder.config(key, value)
    scheme = location.split(":", 1)[0].lower()
    builder = with_packages(builder, [], s3=scheme in _S3_SCHEMES, gcs=scheme == "gs", azure=scheme in _AZURE_SCHEMES)
    # Jars from spark-submit's sources (an S3 filesystem, say) stay beside the engine's.
    jars = appended(builder, "spark.jars", [engine_jar()])
    builder = (builder.master("local[1]").appName("paimon-spark-cli")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.log.level", "WARN" if verbose else "ERROR")
               .config("spark.jars", jars)
               .config("spark.sql.catalog.paimon_path", "paimonspark.spark.PaimonPathCatalog"))
    errors.install_exception_translation()
    if not verbose:
        # PySpark logs every failed query's context as a JSON line; the command reports errors itself.
        logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    with _jvm_output_hidden(not verbose):
        return builder.getOrCreate()


def _system_rows(spark: SparkSession, location: str, system: str, order: str = "",
                 columns: str = "*") -> List[Dict[str, Any]]:
    name = f"{location}${system}".replace("`", "``")
    try:
        frame = spark.sql(f"SELECT {columns} FROM paimon_path.`{name}` {order}")
    except AnalysisException as e:
        if "TABLE_OR_VIEW_NOT_FOUND" in str(e):
            raise NotATableError(f"{location}: not a Paimon table (it has no schema/ directory)") from None
        raise
    return [row.asDict(recursive=True) for row in frame.collect()]


def _json_list(text: Optional[str]) -> Any:
    return json.loads(text) if text else []


def _type_text(paimon_type: Any) -> str:
    """Paimon writes atomic types as text and nested ones (ROW, ARRAY, MAP) as JSON objects."""
    return paimon_type if isinstance(paimon_type, str) else json.dumps(paimon_type, separators=(",", ":"))


def info(spark: SparkSession, location: str) -> Dict[str, Any]:
    schema = _system_rows(spark, location, "schemas", "ORDER BY schema_id DESC LIMIT 1")[0]
    latest = _system_rows(spark, location, "snapshots", "ORDER BY snapshot_id DESC LIMIT 1")
    # Counted by the query: a table can have many files, and only two figures are shown.
    files = _system_rows(spark, location, "files",
                         columns="count(*) AS files, coalesce(sum(file_size_in_bytes), 0) AS bytes")[0]
    return {
        "path": location,
        "schema_id": schema["schema_id"],
        "fields": [{"id": f["id"], "name": f["name"], "type": _type_text(f["type"])} for f in _json_list(schema["fields"])],
        "primary_keys": _json_list(schema["primary_keys"]),
        "partition_keys": _json_list(schema["partition_keys"]),
        "options": json.loads(schema["options"]) if schema["options"] else {},
        "latest_snapshot": None if not latest else {
            key: latest[0][key] for key in ("snapshot_id", "commit_kind", "commit_time", "total_record_count")},
        "file_count": files["files"],
        "file_size_in_bytes": files["bytes"],
    }


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def render_table(rows: Sequence[Dict[str, Any]], columns: Sequence[str]) -> str:
    """Rows as aligned columns under a header; numbers right-aligned."""
    cells = [[_text(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(row.get(c), (int, float)) for row in rows if row.get(c) is not None)
               for c in columns]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(r) for r in cells])


def render_info(table: Dict[str, Any]) -> str:
    snapshot = table["latest_snapshot"]
    lines = [f"table           {table['path']}",
             f"schema id       {table['schema_id']}",
             f"primary key     {', '.join(table['primary_keys']) or '(none)'}",
             f"partitioned by  {', '.join(table['partition_keys']) or '(none)'}",
             "latest snapshot " + ("(none)" if snapshot is None else
                                   f"{snapshot['snapshot_id']} ({snapshot['commit_kind']} at {snapshot['commit_time']}, "
                                   f"{snapshot['total_record_count']} records)"),
             f"live files      {table['file_count']} ({table['file_size_in_bytes']} bytes)",
             "", render_table(table["fields"], ["id", "name", "type"])]
    if table["options"]:
        options = [{"option": k, "value": v} for k, v in sorted(table["options"].items())]
        lines += ["", render_table(options, ["option", "value"])]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> str:
    if args.command == "fetch-jars":
        return ",".join(NAMED[args.jar_set].fetch(args.dir))
    location = _location(args.path)
    spark = _session(args.verbose, location, args.conf)
    if args.command == "info":
        result: Any = info(spark, location)
        return json.dumps(result, default=str, indent=2) if args.json else render_info(result)
    order = {"history": "ORDER BY snapshot_id", "files": "ORDER BY partition, bucket, file_path",
             "tags": "ORDER BY tag_name"}[args.command]
    rows = _system_rows(spark, location, _SYSTEM_TABLE[args.command], order)
    return json.dumps(rows, default=str, indent=2) if args.json else render_table(rows, _COLUMNS[args.command])


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        print(run(args))
        return 0
    except NotATableError as e:
        print(f"paimon-spark: {e}", file=sys.stderr)
        return NOT_A_TABLE
    except errors.PaimonError as e:
        print(f"paimon-spark: {e}", file=sys.stderr)
        return FAILED
