"""A separate process for the streaming kill tests: copies a table's stream into another table.

usage: stream_worker.py WAREHOUSE SOURCE TARGET CHECKPOINT MAX_FILES_PER_TRIGGER
It runs `readStream.table(SOURCE)` into `writeStream.toTable(TARGET)` with Trigger.AvailableNow and the
given read limit, then exits; the parent may kill it half way.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import new_session  # noqa: E402


def main() -> None:
    warehouse, source, target, checkpoint, max_files = sys.argv[1:6]
    spark = new_session(Path(warehouse), master="local[1]")
    query = (spark.readStream.option("read.stream.maxFilesPerTrigger", max_files).table(source)
             .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True).toTable(target))
    query.awaitTermination()
    print("finished", flush=True)


if __name__ == "__main__":
    main()
