"""A pass-through HTTP proxy on 127.0.0.1 in front of an object store's emulator (`fake_gcs.py`,
`sorted_azurite.py`): requests pass unchanged (SharedKey signatures do not cover the port). It can put
Azure's List Blobs answers in name order (`sort_listings`), and, with STORE_PROXY_RECORD set to a file, it
appends one JSON line per request to it (method, path and query, bytes sent and received) for the benches."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ElementTree
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Optional

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def await_port(process: subprocess.Popen, port: int, what: str, seconds: float = 60) -> None:
    """Waits until `process` listens on `port`; exits this script, naming `what`, if it ends first or takes too long."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                sys.exit(f"{what} did not start on port {port}")
            time.sleep(0.1)


def sorted_listing(body: bytes) -> bytes:
    """A List Blobs answer with its blobs and prefixes in name order."""
    root = ElementTree.fromstring(body)
    blobs = root.find("Blobs")
    if blobs is None:
        return body
    entries = sorted(blobs, key=lambda e: e.findtext("Name") or "")
    for entry in list(blobs):
        blobs.remove(entry)
    blobs.extend(entries)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


def serve(port: int, upstream_port: int, sort_listings: bool, upstream: subprocess.Popen) -> None:
    """Serves until SIGTERM, which also stops `upstream`."""
    record: Optional[str] = os.environ.get("STORE_PROXY_RECORD")
    lock = threading.Lock()

    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            body = self._body()
            length = len(body or b"")
            connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
            try:
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length")}
                if body is not None:
                    headers["Content-Length"] = str(length)
                connection.request(self.command, self.path, body=body, headers=headers)
                answer = connection.getresponse()
                content = answer.read()
                if sort_listings and "comp=list" in self.path and "restype=container" in self.path and answer.status == 200:
                    content = sorted_listing(content)
                self.send_response(answer.status, answer.reason)
                for key, value in answer.getheaders():
                    # A HEAD's Content-Length is the object's size, not the (empty) body's.
                    if key.lower() not in _HOP_BY_HOP or (self.command == "HEAD" and key.lower() == "content-length"):
                        self.send_header(key, value)
                if self.command != "HEAD":
                    self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(content)
            finally:
                connection.close()
            if record:
                line = json.dumps({"method": self.command, "path": self.path, "status": answer.status,
                                   "sent": length, "received": len(content)})
                with lock, open(record, "a") as out:
                    out.write(line + "\n")

        def _body(self) -> Optional[bytes]:
            """The request's body, whole: sent with a length, or in chunks (gcs-connector's uploads)."""
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else None

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _forward

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Proxy)
    server.daemon_threads = True

    def stop(*_: object) -> None:
        upstream.terminate()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    finally:
        upstream.terminate()


def run_behind_proxy(command: List[str], port: int, upstream_port: int, what: str, sort_listings: bool = False,
                     ready: Optional[Callable[[], None]] = None) -> None:
    """Starts `command` (listening on `upstream_port`), waits for it, runs `ready()` and serves the proxy on `port`."""
    upstream = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    await_port(upstream, upstream_port, what)
    if ready is not None:
        ready()
    serve(port, upstream_port, sort_listings, upstream)
