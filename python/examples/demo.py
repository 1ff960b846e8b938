"""paimon-spark demo: write a partitioned Paimon table with Spark, query it, look at its files,
and read it back with pypaimon (the reference Python implementation) to show the format matches;
then upsert into primary-key tables (deduplicate and partial-update) and compact one; finally walk
the table's history: snapshots, time travel by id and by timestamp, a tag, a rollback, an expiry;
and a CDC pipeline: order changes streamed into a table with a lookup changelog, and revenue per
customer streamed from that changelog.

Run from the repository root:  .venv/bin/python python/examples/demo.py
"""

import json
import os
import shutil

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from paimon_spark import configure_spark_with_paimon

# A fresh warehouse every run, so the demo always starts from an empty catalog.
WAREHOUSE = os.path.abspath("demo-warehouse")
ROWS = 5_000


def header(title):
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


shutil.rmtree(WAREHOUSE, ignore_errors=True)

header("1. Start Spark with the Paimon catalog")
spark = configure_spark_with_paimon(
    SparkSession.builder.master("local[2]").appName("paimon-spark-demo")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")  # no progress bars mixed into the output
    .config("spark.log.level", "ERROR"),  # applied at start-up, before setLogLevel below can run
    warehouse=WAREHOUSE,
).getOrCreate()
spark.sparkContext.setLogLevel("ERROR")  # keep the output to what the demo prints
print(f"Spark {spark.version}, warehouse {WAREHOUSE}")

header("2. Create a table partitioned by order date")
# Partitioning by day lets queries on one day skip the other days' files entirely.
spark.sql("""
    CREATE TABLE paimon.default.orders (
        order_id BIGINT, customer STRING, amount DECIMAL(10, 2), quantity INT, dt STRING
    ) PARTITIONED BY (dt)
""")
spark.sql("SHOW TABLES IN paimon.default").show()

header(f"3. Load {ROWS:,} generated rows")
# Generated with column expressions so the demo needs no input files; 7 days -> 7 partitions.
orders = spark.range(ROWS).select(
    F.col("id").alias("order_id"),
    F.concat(F.lit("customer-"), (F.col("id") % 250).cast("string")).alias("customer"),
    ((F.col("id") * 37 % 10_000) / 100).cast("decimal(10,2)").alias("amount"),
    (F.col("id") % 5 + 1).cast("int").alias("quantity"),
    F.date_format(F.date_add(F.lit("2024-06-01").cast("date"), (F.col("id") % 7).cast("int")), "yyyy-MM-dd").alias("dt"),
)
# writeTo(...).append() is the DataFrame form of INSERT INTO; each write commits one snapshot.
orders.writeTo("paimon.default.orders").append()
# A second, small SQL insert so the table has two snapshots to look at below.
spark.sql("INSERT INTO paimon.default.orders VALUES (999999, 'walk-in', 12.50, 1, '2024-06-07')")
spark_count = spark.table("paimon.default.orders").count()
print(f"rows in table: {spark_count:,}")

header("4. Query one partition")
# The dt filter is pushed into the scan: only files of partition dt=2024-06-03 are read.
spark.sql("""
    SELECT dt, count(*) AS orders, sum(amount) AS revenue, round(avg(quantity), 2) AS avg_qty
    FROM paimon.default.orders WHERE dt = '2024-06-03' GROUP BY dt
""").show()
spark.sql("""
    SELECT customer, count(*) AS orders, sum(amount) AS revenue FROM paimon.default.orders
    WHERE dt BETWEEN '2024-06-05' AND '2024-06-07' GROUP BY customer ORDER BY revenue DESC LIMIT 5
""").show()

header("5. The table on disk")
table_dir = os.path.join(WAREHOUSE, "default.db", "orders")
# Every commit adds one snapshot file; LATEST is a hint naming the newest one.
snapshot_dir = os.path.join(table_dir, "snapshot")
print(f"{snapshot_dir}:")
for name in sorted(os.listdir(snapshot_dir)):
    print(f"  {name:<14} {os.path.getsize(os.path.join(snapshot_dir, name)):>6} bytes")
print("partition directories:", ", ".join(sorted(d for d in os.listdir(table_dir) if d.startswith("dt="))))
with open(os.path.join(snapshot_dir, "LATEST")) as f:
    latest = f.read().strip()
with open(os.path.join(snapshot_dir, f"snapshot-{latest}")) as f:
    snapshot = json.load(f)
# The snapshot is the whole table state: a schema id plus manifest lists naming the data files.
print(f"snapshot-{latest} (selected fields):")
for key in ("version", "id", "schemaId", "baseManifestList", "deltaManifestList", "commitKind", "totalRecordCount"):
    print(f"  {key:<18} {snapshot.get(key)}")

header("6. Read the same table with pypaimon")
# pypaimon is an independent implementation; reading our files proves they follow the Paimon spec.
from pypaimon import CatalogFactory  # noqa: E402  (imported here: only this section needs it)

catalog = CatalogFactory.create({"warehouse": WAREHOUSE})
table = catalog.get_table("default.orders")
read_builder = table.new_read_builder()
pdf = read_builder.new_read().to_pandas(read_builder.new_scan().plan().splits())
print(f"pypaimon row count: {len(pdf):,}  (Spark: {spark_count:,})")
print(pdf.sort_values("order_id").head(5).to_string(index=False))
assert len(pdf) == spark_count, f"pypaimon read {len(pdf)} rows, Spark {spark_count}"
# Compare a content checksum too, not only the count: same total amount on both sides.
spark_total = spark.table("paimon.default.orders").agg(F.sum("amount")).first()[0]
assert sum(pdf["amount"]) == spark_total, "amount totals differ"  # exact: both are Decimals
print(f"total amount matches: {spark_total}")

header("7. A primary-key table: upserts, the latest value of a key wins")
# 'primary-key' makes writes upserts; 'bucket' splits the keys by Paimon's own bucket function.
spark.sql("""
    CREATE TABLE paimon.default.customers (id INT, name STRING, city STRING, visits INT)
    TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')
""")
spark.sql("INSERT INTO paimon.default.customers VALUES (1, 'Ann', 'Oslo', 1), (2, 'Bo', 'Rome', 1), (3, 'Cy', 'Lima', 1)")
# Key 2 moves to Paris; key 4 is new. Nothing is rewritten: a new sorted run is merged on read.
spark.sql("INSERT INTO paimon.default.customers VALUES (2, 'Bo', 'Paris', 2), (4, 'Di', 'Kyiv', 1)")
spark.sql("SELECT * FROM paimon.default.customers ORDER BY id").show()
read_builder = catalog.get_table("default.customers").new_read_builder()
pk_pdf = read_builder.new_read().to_pandas(read_builder.new_scan().plan().splits()).sort_values("id")
print("pypaimon reads the same rows:", list(zip(pk_pdf["id"], pk_pdf["city"])))
assert list(pk_pdf["city"]) == ["Oslo", "Paris", "Lima", "Kyiv"], "pypaimon disagrees on the upserted rows"

header("8. A partial-update table: each write fills in some columns")
# With merge-engine=partial-update, a null column keeps the value already stored for the key.
spark.sql("""
    CREATE TABLE paimon.default.profiles (id INT, email STRING, phone STRING, plan STRING)
    TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'partial-update')
""")
spark.sql("INSERT INTO paimon.default.profiles VALUES (1, 'ann@example.org', NULL, NULL), (2, NULL, '555-0102', 'free')")
spark.sql("INSERT INTO paimon.default.profiles VALUES (1, NULL, '555-0101', 'pro'), (2, 'bo@example.org', NULL, NULL)")
spark.sql("SELECT * FROM paimon.default.profiles ORDER BY id").show()

header("9. Compact the primary-key table")
# A full compaction merges each bucket's sorted runs into one file at the top level of its LSM tree.
print(spark.sql("CALL paimon.sys.compact(table => 'default.customers')").first())
spark.sql("SELECT * FROM paimon.default.customers ORDER BY id").show()

header("10. The history: every commit is a snapshot")
# System tables read metadata only: `<table>$snapshots`, `$tags`, `$files`, ...
spark.sql("""
    SELECT snapshot_id, commit_kind, commit_time, total_record_count
    FROM paimon.default.`customers$snapshots` ORDER BY snapshot_id
""").show(truncate=False)

header("11. Time travel: by snapshot id, by timestamp")
# Snapshot 1 holds the first insert only: Bo still lives in Rome.
spark.sql("SELECT * FROM paimon.default.customers VERSION AS OF 1 ORDER BY id").show()
first_commit = spark.sql("SELECT commit_time FROM paimon.default.`customers$snapshots` WHERE snapshot_id = 1").first()[0]
# The latest snapshot committed at or before that time, i.e. snapshot 1 again.
spark.sql(f"SELECT * FROM paimon.default.customers TIMESTAMP AS OF '{first_commit}' ORDER BY id").show()

header("12. A tag pins a snapshot; a rollback goes back")
# The tag keeps snapshot 1 readable, and its files on disk, however far expiry goes.
print(spark.sql("CALL paimon.sys.create_tag(table => 'default.customers', tag => 'first-load', snapshot => 1)").first())
spark.sql("INSERT INTO paimon.default.customers VALUES (1, 'Ann', 'Bergen', 2)")
spark.sql("SELECT tag_name, snapshot_id, record_count FROM paimon.default.`customers$tags`").show()
spark.sql("SELECT * FROM paimon.default.customers VERSION AS OF 'first-load' ORDER BY id").show()
# Undo the last insert: later snapshots go, then the files only they used; the next commit is 4 again.
print(spark.sql("CALL paimon.sys.rollback(table => 'default.customers', version => '3')").first())
spark.sql("SELECT * FROM paimon.default.customers ORDER BY id").show()

header("13. Expiry keeps storage bounded")
# Keep only the newest snapshot (older_than overrides the default hour of retention). Snapshot 1
# expires too, but the tag still holds its files.
print(spark.sql("""
    CALL paimon.sys.expire_snapshots(table => 'default.customers', retain_max => 1, retain_min => 1,
                                     older_than => '2999-01-01 00:00:00')
""").first())
spark.sql("SELECT snapshot_id, commit_kind FROM paimon.default.`customers$snapshots`").show()
print("the tag still reads:", [tuple(r) for r in spark.sql(
    "SELECT id, city FROM paimon.default.customers VERSION AS OF 'first-load' ORDER BY id").collect()])
tagged_table = catalog.get_table("default.customers").copy({"scan.tag-name": "first-load"})
read_builder = tagged_table.new_read_builder()
tagged = read_builder.new_read().to_pandas(read_builder.new_scan().plan().splits()).sort_values("id")
print("pypaimon reads the tag too:", list(zip(tagged["id"], tagged["city"])))
assert list(tagged["city"]) == ["Oslo", "Rome", "Lima"], "pypaimon disagrees on the tagged snapshot"

header("14. A CDC pipeline: order changes stream in, revenue per customer streams out")
# Events (new orders, amount changes, cancellations) land in an append table. A first streaming query
# upserts them into `cdc_orders`, whose `lookup` changelog records each change with its before image;
# a second one streams that changelog into revenue per customer, where retractions (-U, -D) subtract.
spark.sql("CREATE TABLE paimon.default.order_events (order_id INT, customer STRING, amount INT, op STRING)")
spark.sql("""
    CREATE TABLE paimon.default.cdc_orders (order_id INT, customer STRING, amount INT, op STRING)
    TBLPROPERTIES ('primary-key' = 'order_id', 'bucket' = '2', 'changelog-producer' = 'lookup',
                   'rowkind.field' = 'op')
""")
spark.sql("""
    CREATE TABLE paimon.default.revenue (customer STRING, amount BIGINT, rowkind STRING)
    TBLPROPERTIES ('primary-key' = 'customer', 'bucket' = '1', 'merge-engine' = 'aggregation',
                   'fields.amount.aggregate-function' = 'sum', 'rowkind.field' = 'rowkind')
""")
checkpoints = os.path.join(WAREHOUSE, "_checkpoints")


def run_pipeline():
    # Trigger.AvailableNow: each query reads what is there and stops; a real job would keep running.
    (spark.readStream.table("paimon.default.order_events").writeStream
     .option("checkpointLocation", os.path.join(checkpoints, "ingest")).trigger(availableNow=True)
     .toTable("paimon.default.cdc_orders").awaitTermination())
    (spark.readStream.table("paimon.default.`cdc_orders$audit_log`")
     .selectExpr("customer", "CAST(amount AS BIGINT) AS amount", "rowkind").writeStream
     .option("checkpointLocation", os.path.join(checkpoints, "revenue")).trigger(availableNow=True)
     .toTable("paimon.default.revenue").awaitTermination())


spark.sql("INSERT INTO paimon.default.order_events VALUES (1, 'ann', 30, '+I'), (2, 'bo', 20, '+I'), (3, 'ann', 10, '+I')")
run_pipeline()
before = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`cdc_orders$snapshots`").first()[0]
# Order 1 grows, order 2 moves to another customer, order 3 is cancelled.
spark.sql("INSERT INTO paimon.default.order_events VALUES (1, 'ann', 45, '+I'), (2, 'cy', 20, '+I'), (3, 'ann', 10, '-D')")
run_pipeline()
spark.sql("SELECT customer, amount FROM paimon.default.revenue WHERE amount <> 0 ORDER BY customer").show()
batch = {r[0]: r[1] for r in spark.sql("SELECT customer, sum(amount) FROM paimon.default.cdc_orders GROUP BY customer").collect()}
streamed = {r[0]: r[1] for r in spark.sql("SELECT customer, amount FROM paimon.default.revenue WHERE amount <> 0").collect()}
assert streamed == batch, f"streamed revenue {streamed} differs from the batch sums {batch}"
print("streamed revenue equals the batch sums:", streamed)
latest = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`cdc_orders$snapshots`").first()[0]
# Spark's own changelog clause: the second round's changes, with before images.
spark.sql(f"""
    SELECT order_id, customer, amount, _change_type, _commit_version
    FROM paimon.default.cdc_orders CHANGES FROM VERSION {before} EXCLUSIVE TO VERSION {latest}
    ORDER BY order_id, _change_type
""").show()

header("15. Schema evolution: add and rename columns, old snapshots keep their schema")
# No data file is rewritten: each change is a new schema version, and old files are read by field id.
spark.sql("ALTER TABLE paimon.default.customers ADD COLUMN email STRING AFTER name")
spark.sql("ALTER TABLE paimon.default.customers RENAME COLUMN city TO home_city")
spark.sql("ALTER TABLE paimon.default.customers ALTER COLUMN visits TYPE BIGINT")
spark.sql("INSERT INTO paimon.default.customers VALUES (5, 'Eve', 'eve@example.org', 'Quito', 1)")
spark.sql("SELECT * FROM paimon.default.customers ORDER BY id").show()
old = spark.sql("SELECT max(snapshot_id) FROM paimon.default.`customers$snapshots`").first()[0] - 1
print(f"snapshot {old}, before the changes, reads with its own columns:")
spark.sql(f"SELECT * FROM paimon.default.customers VERSION AS OF {old} ORDER BY id").show()
spark.sql("SELECT schema_id, fields FROM paimon.default.`customers$schemas`").show(truncate=80)

header("16. UPDATE, DELETE and MERGE INTO")
# On a primary-key table only the changed keys are written, merged on read like any upsert.
spark.createDataFrame([(1, "Ann", "ann@example.org", "Oslo", 3), (6, "Fay", None, "Turku", 1)],
                      "id INT, name STRING, email STRING, home_city STRING, visits BIGINT") \
    .createOrReplaceTempView("customer_updates")
spark.sql("""
    MERGE INTO paimon.default.customers t USING customer_updates s ON t.id = s.id
    WHEN MATCHED THEN UPDATE SET *
    WHEN NOT MATCHED THEN INSERT *
""")
spark.sql("DELETE FROM paimon.default.customers WHERE id = 3")
spark.sql("UPDATE paimon.default.customers SET visits = visits + 1 WHERE home_city = 'Quito'")
spark.sql("SELECT * FROM paimon.default.customers ORDER BY id").show()
spark.sql("SELECT snapshot_id, commit_kind, delta_record_count FROM paimon.default.`customers$snapshots` "
          "ORDER BY snapshot_id DESC LIMIT 4").show()

header("Done")
spark.stop()
