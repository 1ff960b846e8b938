"""Azurite's Blob service (npm `azurite`, installed by `make emulators`) behind a proxy that lists as Azure does.

usage: sorted_azurite.py AZURITE_BLOB PORT DATA_DIR

Azurite's List Blobs answer puts every `<Blob>` before every `<BlobPrefix>`; Azure gives them in name
order, and ABFS relies on that to drop the marker blob `k=0` beside its prefix `k=0/`. Against bare Azurite
a directory with two subdirectories lists each twice. The proxy, on 127.0.0.1:PORT, passes every request
through unchanged (SharedKey signatures do not cover the port) and re-sorts List Blobs answers by name.
"""

from __future__ import annotations

import http.client
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def handler(upstream_port: int) -> type:
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                content = answer.read()
                if "comp=list" in self.path and "restype=container" in self.path and answer.status == 200:
                    content = sorted_listing(content)
                self.send_response(answer.status, answer.reason)
                for key, value in answer.getheaders():
                    # A HEAD's Content-Length is the blob's size, not the (empty) body's.
                    if key.lower() not in _HOP_BY_HOP or (self.command == "HEAD" and key.lower() == "content-length"):
                        self.send_header(key, value)
                if self.command != "HEAD":
                    self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(content)
            finally:
                upstream.close()

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _forward

        def log_message(self, *args: object) -> None:
            pass

    return Proxy


def main(azurite_blob: str, port: int, data_dir: str) -> None:
    upstream_port = _free_port()
    azurite = subprocess.Popen([azurite_blob, "--blobHost", "127.0.0.1", "--blobPort", str(upstream_port),
                                "--location", data_dir, "--skipApiVersionCheck", "--loose", "--silent"],
                               stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", upstream_port), timeout=1).close()
            break
        except OSError:
            if azurite.poll() is not None or time.monotonic() > deadline:
                azurite.kill()
                sys.exit(f"azurite did not start on port {upstream_port}")
            time.sleep(0.1)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(upstream_port))
    server.daemon_threads = True

    def stop(*_: object) -> None:
        azurite.terminate()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    finally:
        azurite.terminate()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
