"""Every table kind end to end on S3 (a moto server): written and read here, read by pypaimon through its own
S3 client, with the history, maintenance and streaming that run on a warehouse, and the bad input an object
store adds."""

from __future__ import annotations

import datetime
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest

from conftest import oracle_rows, rows
from deploy_util import REPO, SPARK_HOME, conf_flags, ivy_conf, job_result, run_tool, spark_env
from paimon_spark import StorageError, engine_jar
from paimon_spark.jar_sets import AZURE, GCS, JDBC, S3, S3_EXCLUDES, S3_PACKAGES
from s3_store import bucket, keys, moto, oracle, spark, warehouse  # noqa: F401  (fixtures)


def table_keys(moto, bucket, table, sub=""):
    return keys(moto, bucket, f"warehouse/default.db/{table}/{sub}")


def test_append_table_on_s3_is_written_read_and_read_by_pypaimon(spark, oracle, moto, bucket):
    spark.sql("CREATE TABLE paimon.default.logs (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql("INSERT INTO paimon.default.logs VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    spark.sql("INSERT INTO paimon.default.logs VALUES (4, 'b')")
    assert rows(spark.table("paimon.default.logs")) == [(1, "a"), (2, "b"), (3, "a"), (4, "b")]
    assert oracle_rows(oracle, "logs") == [(1, "a"), (2, "b"), (3, "a"), (4, "b")]
    # Published by conditional create: no temporary files beside the snapshots and the hints (an expiry
    # that expires nothing writes EARLIEST, as Paimon's does).
    assert sorted(k.rsplit("/", 1)[1] for k in table_keys(moto, bucket, "logs", "snapshot/")) == [
        "EARLIEST", "LATEST", "snapshot-1", "snapshot-2"]


@pytest.mark.parametrize("bucket_option", ["'bucket' = '2'", "'bucket' = '-1'"], ids=["fixed", "dynamic"])
def test_primary_key_tables_upsert_compact_and_produce_changelogs(spark, oracle, bucket_option):
    name = "pk_fixed" if "2" in bucket_option else "pk_dynamic"
    spark.sql(f"CREATE TABLE paimon.default.{name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              f"{bucket_option}, 'changelog-producer' = 'lookup', 'num-sorted-run.compaction-trigger' = '2')")
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO paimon.default.{name} VALUES (2, 'B'), (3, 'c')")
    spark.sql(f"DELETE FROM paimon.default.{name} WHERE id = 1")
    assert rows(spark.table(f"paimon.default.{name}")) == [(2, "B"), (3, "c")]
    assert oracle_rows(oracle, name) == [(2, "B"), (3, "c")]
    last = spark.sql(f"SELECT max(snapshot_id) FROM paimon.default.`{name}$snapshots`").collect()[0][0]
    changes = rows(spark.sql(f"SELECT rowkind, id, v FROM paimon.default.`{name}$audit_log` "
                             f"WITH ('incremental-between' = '0,{last}')"))
    assert ("-D", 1, "a") in changes and ("+U", 2, "B") in changes
    spark.sql(f"CALL paimon.sys.compact(table => 'default.{name}')")
    assert rows(spark.table(f"paimon.default.{name}")) == [(2, "B"), (3, "c")]


def test_time_travel_tags_expiry_and_orphan_cleanup_on_s3(spark, oracle, moto, bucket):
    spark.sql("CREATE TABLE paimon.default.hist (id INT) TBLPROPERTIES ('snapshot.num-retained.min' = '1', "
              "'snapshot.num-retained.max' = '100')")
    for i in range(1, 5):
        spark.sql(f"INSERT INTO paimon.default.hist VALUES ({i})")
    spark.sql("CALL paimon.sys.create_tag(table => 'default.hist', tag => 'two', snapshot => 2)")
    assert rows(spark.sql("SELECT * FROM paimon.default.hist VERSION AS OF 2")) == [(1,), (2,)]
    assert rows(spark.sql("SELECT * FROM paimon.default.hist VERSION AS OF 'two'")) == [(1,), (2,)]
    expired = spark.sql("CALL paimon.sys.expire_snapshots(table => 'default.hist', retain_max => 1)").collect()
    assert expired[0][0] == 3
    assert sorted(k.rsplit("/", 1)[1] for k in table_keys(moto, bucket, "hist", "snapshot/")
                  if "snapshot-" in k) == ["snapshot-4"]
    # The tag keeps its snapshot's files readable after expiry.
    assert rows(spark.sql("SELECT * FROM paimon.default.hist VERSION AS OF 'two'")) == [(1,), (2,)]
    assert rows(spark.table("paimon.default.hist")) == [(1,), (2,), (3,), (4,)]
    # A file no snapshot references, old enough, is an orphan; cleanup deletes it and nothing else.
    moto.client().put_object(Bucket=bucket, Key="warehouse/default.db/hist/bucket-0/data-orphan.parquet", Body=b"x")
    time.sleep(1.5)
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    call = f"CALL paimon.sys.remove_orphan_files(table => 'default.hist', older_than => '{now}'"
    planned = spark.sql(call + ", dry_run => true)").select("file_path").collect()
    assert [r[0].rsplit("/", 1)[1] for r in planned] == ["data-orphan.parquet"]
    assert spark.sql(call + ")").collect()[0][0] == 1
    assert not [k for k in table_keys(moto, bucket, "hist", "bucket-0/") if k.endswith("data-orphan.parquet")]
    assert rows(spark.table("paimon.default.hist")) == [(1,), (2,), (3,), (4,)]
    assert oracle_rows(oracle, "hist") == [(1,), (2,), (3,), (4,)]


def test_we_read_and_extend_a_table_pypaimon_writes_on_s3(spark, oracle):
    import pyarrow as pa
    from pypaimon import Schema

    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    oracle.create_database("pyside", True)
    oracle.create_table("pyside.t", Schema.from_pyarrow_schema(schema), False)
    for batch in range(2):
        table = oracle.get_table("pyside.t")
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.Table.from_pylist([{"id": batch * 10 + i, "v": f"py{i}"} for i in range(3)], schema=schema))
        commit.commit(write.prepare_commit())
        write.close()
        commit.close()
    assert rows(spark.table("paimon.pyside.t")) == sorted((b * 10 + i, f"py{i}") for b in range(2) for i in range(3))
    spark.sql("INSERT INTO paimon.pyside.t VALUES (99, 'ours')")
    assert (99, "ours") in oracle_rows(oracle, "t", db="pyside") and len(oracle_rows(oracle, "t", db="pyside")) == 7


def test_rollback_on_s3_deletes_the_later_snapshots_and_their_files(spark, moto, bucket):
    spark.sql("CREATE TABLE paimon.default.rb (id INT)")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO paimon.default.rb VALUES ({i})")
    spark.sql("CALL paimon.sys.rollback(table => 'default.rb', version => '1')").collect()
    assert rows(spark.table("paimon.default.rb")) == [(1,)]
    assert sorted(k.rsplit("/", 1)[1] for k in table_keys(moto, bucket, "rb", "snapshot/") if "snapshot-" in k) == [
        "snapshot-1"]
    spark.sql("INSERT INTO paimon.default.rb VALUES (4)")
    assert rows(spark.table("paimon.default.rb")) == [(1,), (4,)]


def test_a_stream_writes_to_s3_with_its_checkpoint_on_s3(spark, warehouse):
    spark.sql("CREATE TABLE paimon.default.sink (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1')")
    source = spark.range(0, 20).selectExpr("id % 10 AS id", "CAST(id AS STRING) AS v")
    source.write.mode("overwrite").parquet(warehouse.rsplit("/", 1)[0] + "/source")
    stream = spark.readStream.schema(source.schema).parquet(warehouse.rsplit("/", 1)[0] + "/source")
    query = (stream.writeStream.format("paimon").option("checkpointLocation", warehouse.rsplit("/", 1)[0] + "/ckpt")
             .trigger(availableNow=True).toTable("paimon.default.sink"))
    query.awaitTermination(300)
    assert query.exception() is None
    got = dict((r.id, r.v) for r in spark.table("paimon.default.sink").collect())
    assert sorted(got) == list(range(10)) and all(int(v) % 10 == k for k, v in got.items())


def test_a_bucket_without_conditional_writes_is_refused_unless_one_writer_is_promised(spark, moto):
    plain = moto.create_bucket("no-conditional-writes")
    spark.conf.set(f"fs.s3a.bucket.{plain}.create.conditional.enabled", "false")
    location = f"s3a://{plain}/t"
    with pytest.raises(StorageError) as refused:
        spark.sql(f"CREATE TABLE paimon_path.`{location}` (id INT)")
    assert "fs.s3a.create.conditional.enabled" in str(refused.value)
    assert "commit.object-store.single-writer" in str(refused.value)
    assert keys(moto, plain, "t/") == []
    spark.sql(f"CREATE TABLE paimon_path.`{location}` (id INT) "
              "TBLPROPERTIES ('commit.object-store.single-writer' = 'true')")
    spark.sql(f"INSERT INTO paimon_path.`{location}` VALUES (1), (2)")
    assert rows(spark.table(f"paimon_path.`{location}`")) == [(1,), (2,)]


def test_a_missing_bucket_or_a_dead_endpoint_is_a_storage_error_naming_the_warehouse(spark, moto):
    from deploy_util import free_port

    spark.conf.set("fs.s3a.bucket.dead-endpoint.endpoint", f"http://127.0.0.1:{free_port()}")
    for location in ("s3a://no-such-bucket/wh", "s3a://dead-endpoint/wh"):
        spark.conf.set("spark.sql.catalog.elsewhere", "paimonspark.spark.PaimonCatalog")
        spark.conf.set("spark.sql.catalog.elsewhere.warehouse", location)
        with pytest.raises(StorageError) as error:
            spark.sql("SHOW NAMESPACES IN elsewhere").collect()
        assert error.value.value == location and "s3.endpoint" in str(error.value)
        spark.conf.unset("spark.sql.catalog.elsewhere")
        spark.conf.unset("spark.sql.catalog.elsewhere.warehouse")


def test_credentials_the_store_refuses_are_a_storage_error_naming_the_warehouse(spark, tmp_path):
    """A second moto server that checks credentials once its first three requests have created a user."""
    import boto3

    from s3_store import MotoS3

    guarded = MotoS3(tmp_path / "moto-auth.log", INITIAL_NO_AUTH_ACTION_COUNT="3")
    try:
        iam = boto3.client("iam", endpoint_url=guarded.endpoint, region_name="us-east-1", aws_access_key_id="x",
                           aws_secret_access_key="x")
        iam.create_user(UserName="writer")
        iam.put_user_policy(UserName="writer", PolicyName="s3", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="writer")["AccessKey"]
        boto3.client("s3", endpoint_url=guarded.endpoint, region_name="us-east-1", aws_access_key_id=key["AccessKeyId"],
                     aws_secret_access_key=key["SecretAccessKey"]).create_bucket(Bucket="guarded")
        for k, v in {"endpoint": guarded.endpoint, "access.key": key["AccessKeyId"], "secret.key": "wrong"}.items():
            spark.conf.set(f"fs.s3a.bucket.guarded.{k}", v)
        spark.conf.set("spark.sql.catalog.guarded", "paimonspark.spark.PaimonCatalog")
        spark.conf.set("spark.sql.catalog.guarded.warehouse", "s3a://guarded/wh")
        with pytest.raises(StorageError) as error:
            spark.sql("SHOW NAMESPACES IN guarded").collect()
        assert error.value.value == "s3a://guarded/wh" and "credentials" in str(error.value)
    finally:
        guarded.stop()


def test_the_spark_submit_lines_in_the_docs_run_a_job_on_s3(spark, moto, bucket, tmp_path):
    """docs/object-stores.md's spark-submit command, as written, with the engine jar for the engine's
    coordinate (tests/deployment resolves that one) and this server's S3A settings. Its packages resolve
    into an Ivy folder of the test's own, from the S3A set the suite resolved (standing for Maven Central)."""
    doc = (REPO / "docs" / "object-stores.md").read_text()
    command = shlex.split(re.search(r"```bash\n(spark-submit.*?)```", doc, re.S).group(1).replace("\\\n", ""))
    flags = dict(zip(command[1:-1:2], command[2:-1:2]))
    engine, *packages = flags["--packages"].split(",")
    assert engine.startswith("io.github.paimonspark:paimon-spark_2.13:")
    assert (packages, flags["--exclude-packages"].split(",")) == (S3_PACKAGES, S3_EXCLUDES)
    job = tmp_path / "job.py"
    job.write_text(DOCS_JOB)
    warehouse = f"s3a://{bucket}/docs-warehouse"
    settings = conf_flags({**moto.spark_conf(), **ivy_conf(tmp_path, S3.folder() / "cache")})
    args = [a.replace("s3a://my-bucket/warehouse", warehouse) for a in command[1:-1]]
    args[args.index(flags["--packages"])] = ",".join(packages)
    done = run_tool([SPARK_HOME / "bin" / "spark-submit", "--jars", engine_jar(), *args, *settings, job], spark_env(),
                    tmp_path)
    result = job_result(done.stdout)
    assert result["rows"] == [[1, "a"], [2, "b"]]
    # The jars the suite's own session resolved from S3_PACKAGES (beside the engine's, the JDBC drivers and the
    # GCS and Azure connectors every suite session loads): no SDK bundle, nothing Spark ships.
    others = {Path(j).name for jars in (JDBC, GCS, AZURE) for j in jars.fetch()}
    ours = [j.rsplit("/", 1)[1] for j in str(spark.sparkContext._jvm.java.lang.System.getProperty("spark.jars"))
            .split(",") if j and "paimon-spark" not in j and Path(j).name not in others]  # type: ignore
    assert any("hadoop-aws" in j for j in ours) and sorted(result["jars"]) == sorted(ours)
    assert not any(j.startswith(("software.amazon.awssdk_bundle-", "io.netty_", "org.slf4j_")) for j in ours)

def test_the_fetch_jars_lines_in_the_docs_run_a_job_on_s3(moto, bucket, tmp_path):
    """The way around two cold resolutions at once, as docs/object-stores.md writes it for spark-submit: the
    jars `paimon-spark fetch-jars s3` prints (those the suite resolved) given with --jars, no packages."""
    doc = (REPO / "docs" / "object-stores.md").read_text()
    block = re.search(r"```bash\n(paimon-spark fetch-jars s3 .*?)```", doc, re.S).group(1)
    job = tmp_path / "job.py"
    job.write_text(DOCS_JOB)
    settings = " ".join(shlex.quote(flag) for flag in conf_flags(moto.spark_conf()))
    script = (block.replace("s3a://my-bucket/warehouse", f"s3a://{bucket}/fetch-jars-warehouse")
              .replace(" job.py", f" {settings} {job}"))
    path = os.pathsep.join([str(Path(sys.executable).parent), str(SPARK_HOME / "bin"), os.environ["PATH"]])
    done = run_tool(["bash", "-euo", "pipefail", "-c", script], spark_env(PATH=path), tmp_path)
    result = job_result(done.stdout)
    assert result["rows"] == [[1, "a"], [2, "b"]]
    assert sorted(result["jars"]) == sorted(Path(j).name for j in S3.fetched() or [])


DOCS_JOB = """
import json
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
spark.sql("CREATE TABLE paimon.default.docs (id INT, v STRING)")
spark.sql("INSERT INTO paimon.default.docs VALUES (1, 'a'), (2, 'b')")
rows = sorted(list(r) for r in spark.table("paimon.default.docs").collect())
jars = [j.rsplit("/", 1)[1] for j in spark.conf.get("spark.jars").split(",") if "paimon-spark" not in j]
print("RESULT " + json.dumps({"rows": rows, "jars": jars}))
"""


def test_the_cli_shows_the_history_of_a_table_on_s3(spark, moto, bucket, tmp_path):
    spark.sql("CREATE TABLE paimon.default.cli (id INT)")
    spark.sql("INSERT INTO paimon.default.cli VALUES (1)")
    spark.sql("INSERT INTO paimon.default.cli VALUES (2)")
    settings = conf_flags(moto.spark_conf())
    done = run_tool([sys.executable, "-m", "paimon_spark", "history", f"s3a://{bucket}/warehouse/default.db/cli",
                     "--json", *settings], spark_env(), tmp_path)
    assert [(s["snapshot_id"], s["commit_kind"]) for s in json.loads(done.stdout)] == [(1, "APPEND"), (2, "APPEND")]
