"""moto's S3 server (as `moto_server` runs it), handling one request at a time.

usage: serialized_moto.py HOST PORT

moto checks a conditional PUT's condition (`If-None-Match: *`) and then stores the object without a
lock, so two writers racing for one name can both be told they won it; S3 decides it atomically. Handled
one at a time, moto decides it as S3 does, and the tests test the engine, not moto's race. Little is
lost: moto handles requests under Python's global interpreter lock anyway.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Callable, Iterable

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    os.environ.setdefault("MOTO_PORT", str(port))
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def one_at_a_time(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        with lock:
            return [b"".join(app(environ, start_response))]

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, one_at_a_time, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
