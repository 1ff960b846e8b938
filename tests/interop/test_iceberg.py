"""Iceberg readers see our tables (metadata.iceberg.storage): pyiceberg 0.12 reads the metadata we write
after every commit, every snapshot it lists, exactly as we read the same snapshot."""

import json
from pathlib import Path

import pytest
from pyiceberg.table import StaticTable

from conftest import _sort_key, oracle_append, rows, table_dir


def iceberg_rows(location: Path | str, snapshot_id: int | None = None) -> list[tuple]:
    table = StaticTable.from_metadata(str(location))
    arrow = table.scan(snapshot_id=snapshot_id).to_arrow()
    return sorted((tuple(r.values()) for r in arrow.to_pylist()), key=_sort_key)


def metadata_of(directory: Path) -> dict:
    version = (directory / "version-hint.text").read_text().strip()
    return json.loads((directory / f"v{version}.metadata.json").read_text())


def test_every_commit_of_an_append_table_is_an_iceberg_snapshot_pyiceberg_reads_as_we_do(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.events (id INT, name STRING, amount DOUBLE, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location', 'snapshot.num-retained.min' = '20')")
    location = table_dir(warehouse, "events")
    metadata = location / "metadata"
    steps = [
        "INSERT INTO paimon.default.events VALUES (1, 'a', 1.5, 'd1'), (2, 'b', NULL, 'd2')",
        "INSERT INTO paimon.default.events VALUES (3, 'c', 3.0, 'd1')",
        "INSERT OVERWRITE paimon.default.events PARTITION (dt = 'd2') VALUES (4, 'd', 4.0)",
        "DELETE FROM paimon.default.events WHERE id = 1",
        "ALTER TABLE paimon.default.events ADD COLUMN note STRING",
        "INSERT INTO paimon.default.events VALUES (5, 'e', 5.0, 'd3', 'new')",
        "CALL paimon.sys.compact(table => 'default.events')",
    ]
    seen = {}
    for step in steps:
        spark.sql(step)
        latest = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`events$snapshots`").first()[0]
        ours = rows(spark.sql(f"SELECT * FROM paimon.default.events VERSION AS OF {latest}"))
        seen[latest] = ours
        assert iceberg_rows(location) == ours, step
    current = metadata_of(metadata)
    assert current["current-snapshot-id"] == max(seen)
    assert [s["snapshot-id"] for s in current["snapshots"]] == sorted(seen)
    assert [f["name"] for f in current["schemas"][-1]["fields"]] == ["id", "name", "amount", "dt", "note"]
    assert current["partition-specs"][0]["fields"] == [
        {"name": "dt", "transform": "identity", "source-id": 3, "field-id": 1000}]
    # Every snapshot Iceberg lists reads as ours did at that snapshot (its rows under the schema it was written with).
    for snapshot_id, ours in seen.items():
        theirs = iceberg_rows(location, snapshot_id)
        assert [r[:4] for r in theirs] == [r[:4] for r in ours], snapshot_id
    # Old versions are deleted as Paimon deletes them (delete-after-commit, no previous versions kept).
    assert sorted(p.name for p in metadata.glob("v*.metadata.json")) == [f"v{max(seen)}.metadata.json"]


def test_nested_columns_read_in_iceberg_by_their_parquet_field_ids(spark, warehouse):
    # Iceberg readers find list elements, map keys and values and struct fields by the Parquet field ids our
    # files carry on every node (Paimon's nested ids), not by name.
    spark.sql("CREATE TABLE paimon.default.nested (id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>, "
              "point STRUCT<x: INT, y: STRING>, runs ARRAY<STRUCT<a: INT>>) "
              "TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location')")
    spark.sql("INSERT INTO paimon.default.nested VALUES (1, array('a', 'b'), map('k', 1), named_struct('x', 1, 'y', 'p'), "
              "array(named_struct('a', 7))), (2, NULL, map(), NULL, array())")
    expected = [(1, ["a", "b"], [("k", 1)], {"x": 1, "y": "p"}, [{"a": 7}]), (2, None, [], None, [])]
    ours = sorted((r.id, r.tags, sorted(r.attrs.items()) if r.attrs is not None else None,
                   r.point.asDict() if r.point else None, [x.asDict() for x in r.runs] if r.runs is not None else None)
                  for r in spark.table("paimon.default.nested").collect())
    assert ours == expected
    arrow = StaticTable.from_metadata(str(table_dir(warehouse, "nested"))).scan().to_arrow()
    theirs = sorted((r["id"], r["tags"], r["attrs"], r["point"], r["runs"]) for r in arrow.to_pylist())
    assert theirs == expected


def test_each_batch_of_a_stream_into_the_table_is_an_iceberg_snapshot(spark, warehouse, tmp_path):
    spark.sql("CREATE TABLE paimon.default.stream_src (id INT, v STRING)")
    spark.sql("CREATE TABLE paimon.default.streamed (id INT, v STRING) "
              "TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location')")
    # The stream picks up each new commit of the source as a batch of its own.
    for i in range(3):
        spark.sql(f"INSERT INTO paimon.default.stream_src VALUES ({i}, 'v{i}')")
        (spark.readStream.table("paimon.default.stream_src").writeStream
         .option("checkpointLocation", str(tmp_path / "streamed")).trigger(availableNow=True)
         .toTable("paimon.default.streamed")).awaitTermination()
    location = table_dir(warehouse, "streamed")
    snapshots = [s["snapshot-id"] for s in metadata_of(location / "metadata")["snapshots"]]
    assert len(snapshots) == 3
    for snapshot_id in snapshots:
        assert iceberg_rows(location, snapshot_id) == rows(spark.sql(
            f"SELECT * FROM paimon.default.streamed VERSION AS OF {snapshot_id}")), snapshot_id
    assert iceberg_rows(location) == [(0, "v0"), (1, "v1"), (2, "v2")]


def test_a_rollback_and_a_commit_that_wrote_no_iceberg_metadata_are_caught_up(spark, warehouse, oracle):
    import pyarrow as pa

    spark.sql("CREATE TABLE paimon.default.gaps (id INT, v STRING) TBLPROPERTIES ('metadata.iceberg.storage' = "
              "'table-location')")
    location = table_dir(warehouse, "gaps")
    for i in range(3):
        spark.sql(f"INSERT INTO paimon.default.gaps VALUES ({i}, 'v{i}')")
    # Back to snapshot 2: Iceberg readers never see the files the rollback removed, and commits go on from there.
    spark.sql("CALL paimon.sys.rollback(table => 'default.gaps', snapshot => 2)")
    assert iceberg_rows(location) == rows(spark.sql("SELECT * FROM paimon.default.gaps")) == [(0, "v0"), (1, "v1")]
    spark.sql("INSERT INTO paimon.default.gaps VALUES (7, 'v7')")
    assert iceberg_rows(location) == [(0, "v0"), (1, "v1"), (7, "v7")]
    # A writer that keeps no Iceberg metadata (pypaimon) commits: Iceberg lags until our next commit repairs it.
    oracle_append(oracle, "default.gaps", pa.table({"id": pa.array([8], pa.int32()), "v": ["v8"]}))
    assert iceberg_rows(location) == [(0, "v0"), (1, "v1"), (7, "v7")]
    theirs = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`gaps$snapshots`").first()[0]
    spark.sql("INSERT INTO paimon.default.gaps VALUES (9, 'v9')")
    assert iceberg_rows(location) == rows(spark.sql("SELECT * FROM paimon.default.gaps"))
    # Without the version before it, the metadata started afresh at our commit: no history before it.
    first = metadata_of(location / "metadata")["snapshots"][0]
    assert first["snapshot-id"] == theirs + 1 and "parent-snapshot-id" not in first


def test_a_commit_whose_iceberg_metadata_fails_is_committed_and_the_next_commit_repairs_it(spark, warehouse):
    """What a writer killed between its Paimon commit and its Iceberg metadata leaves: the snapshot without
    its version. Here the metadata directory is a file for one commit, so that writing it fails there."""
    import shutil

    from paimon_spark import StorageError

    spark.sql("CREATE TABLE paimon.default.broken (id INT) TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location')")
    spark.sql("INSERT INTO paimon.default.broken VALUES (1)")
    location = table_dir(warehouse, "broken")
    shutil.rmtree(location / "metadata")
    (location / "metadata").write_text("in the way")
    with pytest.raises(StorageError) as failed:
        spark.sql("INSERT INTO paimon.default.broken VALUES (2)")
    assert "snapshot 2 was committed" in str(failed.value) and "Iceberg" in str(failed.value)
    assert rows(spark.sql("SELECT * FROM paimon.default.broken")) == [(1,), (2,)]
    (location / "metadata").unlink()
    spark.sql("INSERT INTO paimon.default.broken VALUES (3)")
    assert iceberg_rows(location) == [(1,), (2,), (3,)]


def test_a_hadoop_catalog_layout_and_tags_as_refs(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.ledger (id BIGINT, ok BOOLEAN, day DATE) "
              "TBLPROPERTIES ('metadata.iceberg.storage' = 'hadoop-catalog')")
    spark.sql("INSERT INTO paimon.default.ledger VALUES (1, true, DATE'2026-12-01')")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.ledger', tag => 'first')")
    spark.sql("INSERT INTO paimon.default.ledger VALUES (2, false, DATE'2026-12-02')")
    location = warehouse / "iceberg" / "default" / "ledger"
    assert iceberg_rows(location) == rows(spark.sql("SELECT * FROM paimon.default.ledger"))
    assert metadata_of(location / "metadata")["refs"] == {
        "first": {"snapshot-id": 1, "type": "tag", "max-ref-age-ms": 9223372036854775807}}
    assert not (table_dir(warehouse, "ledger") / "metadata").exists()


def test_the_option_set_by_alter_on_a_table_holding_data_takes_effect_at_its_next_commit(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.later (id INT, v STRING)")
    spark.sql("INSERT INTO paimon.default.later VALUES (1, 'a')")
    spark.sql("ALTER TABLE paimon.default.later SET TBLPROPERTIES ('metadata.iceberg.storage' = 'table-location', "
              "'metadata.iceberg.manifest-legacy-version' = 'true', 'metadata.iceberg.manifest-compression' = 'zstd')")
    spark.sql("INSERT INTO paimon.default.later VALUES (2, 'b')")
    spark.sql("INSERT INTO paimon.default.later VALUES (3, 'c')")
    assert iceberg_rows(table_dir(warehouse, "later")) == [(1, "a"), (2, "b"), (3, "c")]


def test_a_primary_key_table_reads_in_iceberg_as_of_its_last_full_compaction(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.keyed (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'metadata.iceberg.storage' = 'table-location')")
    location = table_dir(warehouse, "keyed")
    spark.sql("INSERT INTO paimon.default.keyed VALUES (1, 'a'), (2, 'b')")
    # A fresh table's one level-0 file is read as it is, so Iceberg readers see it (Paimon's rule).
    assert iceberg_rows(location) == [(1, "a"), (2, "b")]
    spark.sql("INSERT INTO paimon.default.keyed VALUES (2, 'b2'), (3, 'c')")
    # Level-0 files wait for a full compaction: Iceberg readers still see the first write.
    assert iceberg_rows(location) == [(1, "a"), (2, "b")]
    spark.sql("CALL paimon.sys.compact(table => 'default.keyed', compact_strategy => 'full')")
    assert iceberg_rows(location) == rows(spark.sql("SELECT * FROM paimon.default.keyed")) == [(1, "a"), (2, "b2"), (3, "c")]


def test_what_iceberg_metadata_cannot_hold_is_refused_before_anything_is_written(spark, warehouse):
    from paimon_spark import UnsupportedFeatureError, InvalidOptionError

    spark.sql("CREATE TABLE paimon.default.keyed_dv (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'metadata.iceberg.storage' = 'table-location')")
    with pytest.raises(UnsupportedFeatureError) as refused:
        spark.sql("INSERT INTO paimon.default.keyed_dv VALUES (1, 'a')")
    assert refused.value.value == "metadata.iceberg.storage" and "deletion vectors" in str(refused.value)
    assert not (table_dir(warehouse, "keyed_dv") / "snapshot").exists()
    # Paimon's REST catalog storage is refused as not built; a value Paimon does not have, as wrong.
    with pytest.raises(UnsupportedFeatureError) as unbuilt:
        spark.sql("CREATE TABLE paimon.default.rest_ice (id INT) TBLPROPERTIES ('metadata.iceberg.storage' = 'rest-catalog')")
    assert "metadata.iceberg.storage" in str(unbuilt.value) and "REST catalog" in str(unbuilt.value)
    with pytest.raises(InvalidOptionError) as wrong:
        spark.sql("CREATE TABLE paimon.default.typo_ice (id INT) TBLPROPERTIES ('metadata.iceberg.storage' = 'hadoop')")
    assert "metadata.iceberg.storage" in str(wrong.value)
    with pytest.raises(InvalidOptionError) as version:
        spark.sql("CREATE TABLE paimon.default.v4_ice (id INT) TBLPROPERTIES "
                  "('metadata.iceberg.storage' = 'table-location', 'metadata.iceberg.format-version' = '4')")
    assert "metadata.iceberg.format-version" in str(version.value)
