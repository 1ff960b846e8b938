"""Azurite's Blob service (npm `azurite`, installed by `make emulators`) behind a proxy that lists as Azure does.

usage: sorted_azurite.py AZURITE_BLOB PORT DATA_DIR

Azurite's List Blobs answer puts every `<Blob>` before every `<BlobPrefix>`; Azure gives them in name
order, and ABFS relies on that to drop the marker blob `k=0` beside its prefix `k=0/`. Against bare Azurite
a directory with two subdirectories lists each twice. The proxy (`store_proxy.py`), on 127.0.0.1:PORT,
re-sorts List Blobs answers by name.
"""

from __future__ import annotations

import sys

from store_proxy import free_port, run_behind_proxy


def main(azurite_blob: str, port: int, data_dir: str) -> None:
    upstream = free_port()
    run_behind_proxy([azurite_blob, "--blobHost", "127.0.0.1", "--blobPort", str(upstream), "--location", data_dir,
                      "--skipApiVersionCheck", "--loose", "--silent"], port, upstream, "azurite", sort_listings=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
