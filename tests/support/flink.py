"""Apache Flink 2.0.0 with Apache Paimon's Flink connector 1.4.2, in a JVM of its own (FlinkSql.java) over a
warehouse: the engine Paimon's users mostly write with, reading and writing the tables a test shares with us.
Its jars are resolved by sbt (`flinkOracle/writeClasspath`, run by `make test`), never at test time."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from deploy_util import REPO, kill_group

CLASSPATH = REPO / "target" / "flink-oracle.classpath"
_DRIVER = Path(__file__).resolve().parent / "FlinkSql.java"


class FlinkError(Exception):
    """What Flink reported for a request that failed."""


class Flink:
    """The Flink JVM of a test module, until `stop()`. Statements run in Flink SQL over the `paimon` catalog
    of `warehouse`, in its `default` database."""

    def __init__(self, warehouse: Path, log: Path) -> None:
        if not CLASSPATH.is_file():
            raise FileNotFoundError(f"{CLASSPATH} is missing: run `build/sbt flinkOracle/writeClasspath` (make test does)")
        java = shutil.which("java") or "java"
        self._log = log.open("w")
        # Many short jobs: the client compiler alone and the serial collector cost less CPU than the defaults.
        self.process = subprocess.Popen([java, "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", CLASSPATH.read_text().strip(), str(_DRIVER),
                                         warehouse.as_uri()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._log, text=True, start_new_session=True)
        self.log = log
        ready = self.process.stdout.readline()  # type: ignore[union-attr]
        if ready.strip() != "READY":
            self.stop()
            raise FlinkError(f"Flink did not start: {ready!r}\n{log.read_text()[-4000:]}")

    def run(self, script: str, mode: str = "batch", limit: int = 0, timeout_ms: int = 0) -> list[tuple[str, list]]:
        """Runs `script` (statements, each ending with `;` at a line's end); the rows its queries gave, each
        with its row kind (`+I`, `-U`, `+U`, `-D`)."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"RUN {mode} {limit} {timeout_ms}\n{script.strip()}\nEND\n")
        stdin.flush()
        rows: list[tuple[str, list]] = []
        while True:
            line = stdout.readline()
            if not line:
                raise FlinkError(f"Flink exited {self.process.poll()}:\n{self.log.read_text()[-4000:]}")
            if line.startswith("ROW "):
                kind, values = line[4:].split(" ", 1)
                rows.append((kind, json.loads(values)))
            elif line.startswith("ERROR "):
                raise FlinkError(line[6:].strip())
            elif line.strip() == "OK":
                return rows

    def rows(self, query: str) -> list[tuple]:
        """A batch query's rows as sorted tuples of Flink's values (see FlinkSql.java for their text)."""
        return sorted((tuple(values) for _, values in self.run(query.rstrip(";") + ";")), key=repr)

    def changes(self, query: str, count: int, timeout_s: float = 120) -> list[tuple]:
        """The first `count` rows of a streaming query, each led by its kind, sorted."""
        started = time.monotonic()
        rows = self.run(query.rstrip(";") + ";", mode="stream-read", limit=count, timeout_ms=int(timeout_s * 1000))
        assert len(rows) == count, f"{len(rows)} of {count} changes in {time.monotonic() - started:.0f} s: {rows}"
        return sorted(((kind, *values) for kind, values in rows), key=repr)

    def stop(self) -> None:
        if self.process.poll() is None:
            kill_group(self.process, "Flink")
        self._log.close()


def plain(value: Any) -> Any:
    """A value Spark gives, as FlinkSql.java writes Flink's: timestamps with microseconds, dates in ISO form,
    decimals as plain text, bytes in hex, structs and arrays as lists, maps as [key, value] lists sorted by their
    JSON text."""
    import datetime
    import decimal

    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, dict):
        return sorted(([plain(k), plain(v)] for k, v in value.items()), key=lambda e: json.dumps(e, separators=(",", ":")))
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
