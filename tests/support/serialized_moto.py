"""moto's S3 server (as `moto_server` runs it), handling one request at a time.

usage: serialized_moto.py HOST PORT

moto checks a conditional PUT's condition (`If-None-Match: *`) and then stores the object without a
lock, so two writers racing for one name can both be told they won it; S3 decides it atomically. Handled
one at a time, moto decides it as S3 does, and the tests test the engine, not moto's race. Little is
lost: moto handles requests under Python's global interpreter lock anyway.

S3 answers a conditional PUT with 409 ConditionalRequestConflict while another conditional write to the
same name is in flight, which requests handled one at a time never are. `POST /moto-tests/conflicts?
path=/<bucket>/<key>&count=N` makes the next N conditional PUTs to that object get that answer; a GET of
the same URL tells how many are left.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import urllib.parse
from typing import Any, Callable, Dict, Iterable

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

CONFLICTS = "/moto-tests/conflicts"
CONFLICT_ERROR = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A '
                  b'conflicting conditional operation is currently in progress against this resource. Try again.'
                  b'</Message></Error>')


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    os.environ.setdefault("MOTO_PORT", str(port))
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()
    conflicts: Dict[str, int] = {}

    def one_at_a_time(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        with lock:
            path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
            if path == CONFLICTS:
                target = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
                if method == "POST":
                    conflicts[target["path"][0]] = int(target["count"][0])
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [str(conflicts.get(target["path"][0], 0)).encode()]
            if method == "PUT" and environ.get("HTTP_IF_NONE_MATCH") and conflicts.get(path, 0) > 0:
                conflicts[path] -= 1
                environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
                start_response("409 Conflict", [("Content-Type", "application/xml")])
                return [CONFLICT_ERROR]
            return [b"".join(app(environ, start_response))]

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, one_at_a_time, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
