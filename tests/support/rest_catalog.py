"""Apache Paimon's own REST catalog server for the tests (tests/support/LoopbackRestCatalog.java, run by Java's
source launcher on the jars `restOracle/writeClasspath` resolves, as the Scala suites' RestServer runs it), and
a proxy in front of it that loses a commit on request, as a server that goes away mid-commit would."""

from __future__ import annotations

import http.client
import http.server
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, Optional

from deploy_util import REPO, SPARK_HOME, kill_group

CLASSPATH = REPO / "target" / "rest-oracle.classpath"
_LAUNCHER = Path(__file__).resolve().parent / "LoopbackRestCatalog.java"


class RestCatalogServer:
    """The server at `url`, answering the catalog `warehouse` with the bearer `token`, until `stop()`."""

    def __init__(self, root: Path, warehouse: str = "rest_wh", token: str = "the-token") -> None:
        if not CLASSPATH.is_file():
            raise FileNotFoundError(f"{CLASSPATH} is missing: run `build/sbt restOracle/writeClasspath` (make test does)")
        root.mkdir(parents=True, exist_ok=True)
        self.warehouse, self.token, self.log = warehouse, token, root / "server.log"
        java = shutil.which("java") or "java"
        command = [java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                   f"{CLASSPATH.read_text().strip()}:{SPARK_HOME / 'jars'}/*", str(_LAUNCHER), str(root / "data"),
                   warehouse, token]
        with self.log.open("w") as out:
            self.process = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 180
        while not (ready := [line for line in self.log.read_text().splitlines() if line.startswith("READY ")]):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the REST catalog server did not start:\n{self.log.read_text()[-4000:]}")
            time.sleep(0.2)
        self.url = ready[0].split()[1]

    def options(self, url: Optional[str] = None, token: Optional[str] = None) -> Dict[str, str]:
        """Paimon catalog options for this server (or the proxy at `url`), as Spark and pypaimon take them."""
        return {"metastore": "rest", "uri": url or self.url, "warehouse": self.warehouse, "token.provider": "bear",
                "token": token or self.token}

    def requests(self) -> list[str]:
        """The requests it served, one `METHOD PATH STATUS` line each."""
        return [line for line in self.log.read_text().splitlines() if line.split(" ")[0] in ("GET", "POST", "DELETE")]

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill_group(self.process, "the REST catalog server")


class LosingProxy:
    """An HTTP proxy on 127.0.0.1 to `target` that passes every request on, except the next commit after
    `lose(...)`: it drops that connection without an answer, either before passing the commit on (it never
    landed) or after (it landed, and its writer never heard)."""

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("http://").split(":")
        self._lose: Optional[str] = None
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                losing = self.path.endswith("/commit") and proxy._lose is not None
                when, proxy._lose = (proxy._lose, None) if losing else (None, proxy._lose)
                if when == "before":
                    self.close_connection = True
                    return
                upstream = http.client.HTTPConnection(host, int(port), timeout=60)
                upstream.request(self.command, self.path, body, {k: v for k, v in self.headers.items()
                                                                 if k.lower() not in ("host", "connection")})
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                if when == "after":
                    self.close_connection = True
                    return
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _forward

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def lose(self, when: str) -> None:
        """Loses the next commit: `before` it reaches the server, or `after` the server answered it."""
        assert when in ("before", "after")
        self._lose = when

    def stop(self) -> None:
        self.server.shutdown()
