"""A separate process for the kill tests: runs one SQL statement on its own SparkSession.

usage: history_worker.py WAREHOUSE READY_FILE GO_FILE DONE_FILE SQL_FILE
It touches READY_FILE once its session is up, waits for GO_FILE, runs the statement in SQL_FILE,
then touches DONE_FILE and waits to be killed: the parent kills it mid-statement, and DONE_FILE
tells it whether it was.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import new_session  # noqa: E402


def main() -> None:
    warehouse, ready, go, done, sql_file = sys.argv[1:6]
    spark = new_session(Path(warehouse), master="local[1]")
    spark.sql("SELECT 1").collect()  # warm up the planner before the clock starts
    Path(ready).touch()
    while not Path(go).exists():
        time.sleep(0.01)
    print(spark.sql(Path(sql_file).read_text()).collect(), flush=True)
    Path(done).touch()
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
