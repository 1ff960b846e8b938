"""A separate writer process for the concurrency tests: appends rows, one commit per statement.

usage: concurrent_writer.py WAREHOUSE TABLE WRITER_ID COMMITS GO_FILE [ROWS_PER_COMMIT]
It waits for GO_FILE to exist once its session is up, so that writers start committing together.
WAREHOUSE is a local path or an s3a:// location (the store's settings then come from the environment).
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import new_session  # noqa: E402


def main() -> None:
    warehouse, table, writer, commits, go_file = sys.argv[1:6]
    rows_per_commit = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    spark = new_session(warehouse if warehouse.startswith("s3a://") else Path(warehouse), master="local[1]")
    Path(f"{go_file}.ready-{writer}").touch()
    while not Path(go_file).exists():
        time.sleep(0.05)
    for i in range(int(commits)):
        spark.range(rows_per_commit).selectExpr(f"{writer} AS writer", f"{i} * 1000000 + id AS seq").writeTo(
            table).append()
    spark.stop()


if __name__ == "__main__":
    main()
