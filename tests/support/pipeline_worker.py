"""A separate process for the streaming pipeline test: keeps revenue per customer from an orders table's changelog.

usage: pipeline_worker.py WAREHOUSE CHECKPOINT MODE
Streams `default.orders$audit_log` into `default.revenue` (an aggregation table whose `rowkind` column carries each
change's kind, so retractions subtract). MODE `follow` triggers every second until killed; `drain` reads what is there
(Trigger.AvailableNow) and exits.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import new_session  # noqa: E402


def main() -> None:
    warehouse, checkpoint, mode = sys.argv[1:4]
    spark = new_session(Path(warehouse), master="local[1]")
    changes = spark.readStream.table("paimon.default.`orders$audit_log`")
    writer = (changes.selectExpr("customer", "CAST(amount AS BIGINT) AS amount", "rowkind").writeStream
              .option("checkpointLocation", checkpoint))
    writer = writer.trigger(availableNow=True) if mode == "drain" else writer.trigger(processingTime="1 second")
    query = writer.toTable("paimon.default.revenue")
    print("started", flush=True)
    query.awaitTermination()
    print("finished", flush=True)


if __name__ == "__main__":
    main()
