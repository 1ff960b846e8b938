"""`paimon-spark` / `python -m paimon_spark`: each subcommand on a real table, --json parsed back, and
the exit status for a path that is not a table. Most runs call the command's main() in this process
(it reuses the module's session); one runs it as its own process, as a user does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import table_dir
from paimon_spark.cli import NOT_A_TABLE, main


@pytest.fixture(scope="module")
def table(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.cli (id INT, p STRING, v DOUBLE) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2')")
    spark.sql("INSERT INTO paimon.default.cli VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'a', 3.0)")
    spark.sql("INSERT INTO paimon.default.cli VALUES (1, 'a', 10.0)")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.cli', tag => 'v1', snapshot => 1)")
    spark.sql("CALL paimon.sys.compact(table => 'default.cli')")
    return table_dir(warehouse, "cli")


def run_json(capsys, *argv: str):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_info(spark, table, capsys):
    info = run_json(capsys, "info", str(table))
    assert [f["name"] for f in info["fields"]] == ["id", "p", "v"]
    assert info["fields"][0]["type"] == "INT NOT NULL" and info["fields"][2]["type"] == "DOUBLE"
    assert (info["primary_keys"], info["partition_keys"]) == (["id", "p"], ["p"])
    assert info["options"]["bucket"] == "2"
    assert info["latest_snapshot"]["snapshot_id"] == 3 and info["latest_snapshot"]["commit_kind"] == "COMPACT"
    assert info["latest_snapshot"]["total_record_count"] == 3
    files = spark.sql("SELECT count(*), sum(file_size_in_bytes) FROM paimon.default.`cli$files`").collect()[0]
    assert (info["file_count"], info["file_size_in_bytes"]) == (files[0], files[1]) and files[0] >= 2
    assert main(["info", str(table)]) == 0
    text = capsys.readouterr().out
    assert "primary key     id, p" in text and "partitioned by  p" in text and "latest snapshot 3 (COMPACT" in text
    assert any(line.split()[:3] == ["2", "v", "DOUBLE"] for line in text.splitlines())


def test_history(table, capsys):
    history = run_json(capsys, "history", str(table))
    assert [(s["snapshot_id"], s["commit_kind"]) for s in history] == [(1, "APPEND"), (2, "APPEND"), (3, "COMPACT")]
    assert history[0]["delta_record_count"] == 3 and "commit_user" in history[0]
    assert main(["history", str(table)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["snapshot_id", "schema_id", "commit_kind", "commit_time", "total_record_count",
                                "delta_record_count", "changelog_record_count"]
    assert set(lines[1]) == {"-", " "} and len(lines) == 5


def test_files(spark, table, capsys):
    files = run_json(capsys, "files", str(table))
    expected = spark.sql("SELECT file_path FROM paimon.default.`cli$files`").collect()
    assert sorted(f["file_path"] for f in files) == sorted(r[0] for r in expected)
    assert {f["partition"] for f in files} == {"{a}", "{b}"}
    assert main(["files", str(table)]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[:3] == ["partition", "bucket", "level"]


def test_tags(table, capsys):
    tags = run_json(capsys, "tags", str(table))
    assert [(t["tag_name"], t["snapshot_id"], t["record_count"]) for t in tags] == [("v1", 1, 3)]


def test_a_path_that_is_not_a_table(table, tmp_path, capsys):
    assert main(["info", str(tmp_path)]) == NOT_A_TABLE
    assert capsys.readouterr().err.strip() == \
        f"paimon-spark: {tmp_path}: not a Paimon table (it has no schema/ directory)"
    assert main(["tags", str(tmp_path / "missing")]) == NOT_A_TABLE
    assert "no such directory" in capsys.readouterr().err


def test_as_its_own_process(table):
    done = subprocess.run([sys.executable, "-m", "paimon_spark", "history", str(table)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0].startswith("snapshot_id") and len(done.stdout.splitlines()) == 5
    assert done.stderr == ""  # Spark's start-up lines stay out of a command's output
