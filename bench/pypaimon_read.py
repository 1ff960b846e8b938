"""pypaimon's reader as a baseline of bench/read_anchor.py, in a process of its own so that its CPU
seconds are its own: JavaRead's arguments and JSON line (engine-scala/src/test/scala/paimonspark/bench/
JavaRead.scala), read with pypaimon's catalog API in this one thread.

    python pypaimon_read.py WAREHOUSE REPEATS SCAN...    (SCAN: name:table, or name:table:bound for id < bound)
"""

from __future__ import annotations

import json
import sys
import time

import pyarrow
import pyarrow.compute as pc
from pypaimon import CatalogFactory


def main(warehouse: str, repeats: int, scans: list[str]) -> None:
    # Arrow's own pools would decode columns in threads beside this one.
    pyarrow.set_cpu_count(1)
    pyarrow.set_io_thread_count(1)
    catalog = CatalogFactory.create({"warehouse": warehouse})

    def read(table: str, bound: int | None, splits: slice = slice(None)) -> tuple[int, int]:
        builder = catalog.get_table(f"default.{table}").new_read_builder()
        if bound is not None:
            builder = builder.with_filter(builder.new_predicate_builder().less_than("id", bound))
        # to_arrow decodes every value of every column into Arrow arrays: nothing is left lazy.
        data = builder.new_read().to_arrow(builder.new_scan().plan().splits()[splits], parallelism=1)
        return (0, 0) if data is None else (data.num_rows, pc.sum(data["id"]).as_py() or 0)

    parsed = [(name, table, int(bound[0]) if bound else None)
              for name, table, *bound in (scan.split(":") for scan in scans)]
    for _, table, bound in parsed:
        # Untimed, as JavaRead's warm-up: first-use imports and caches. One split of each scan is enough
        # without a JIT, and the whole merge-on-read scan would take as long as the timed one.
        read(table, bound, slice(1))
    out = {}
    for name, table, bound in parsed:
        runs = []
        for _ in range(repeats):
            cpu, wall = time.process_time(), time.perf_counter()  # process_time: all threads of this process
            result = read(table, bound)
            runs.append((result, time.process_time() - cpu, time.perf_counter() - wall))
        if len({r[0] for r in runs}) != 1:
            raise AssertionError(f"{name}: repeated reads differ: {[r[0] for r in runs]}")
        out[name] = {"rows": runs[0][0][0], "id_sum": runs[0][0][1], "cpu_s": [r[1] for r in runs],
                     "wall_s": [r[2] for r in runs], "jit_cpu_s": [0.0] * repeats}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
