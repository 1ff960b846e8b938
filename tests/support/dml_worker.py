"""A separate process running one SQL statement, for the row-level concurrency test.

usage: dml_worker.py WAREHOUSE GO_FILE STATEMENT
It touches GO_FILE.ready once its session is up, waits for GO_FILE, runs STATEMENT, prints
"committed" or the error's class name, and then touches GO_FILE.done.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import new_session  # noqa: E402


def main() -> None:
    warehouse, go_file, statement = sys.argv[1:4]
    spark = new_session(Path(warehouse), master="local[1]")
    Path(f"{go_file}.ready").touch()
    while not Path(go_file).exists():
        time.sleep(0.05)
    try:
        spark.sql(statement)
        print("committed", flush=True)
    except Exception as e:  # the test reads the class name
        print(type(e).__name__, flush=True)
    Path(f"{go_file}.done").touch()
    spark.stop()


if __name__ == "__main__":
    main()
