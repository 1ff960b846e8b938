"""moto's S3 server (as `moto_server` runs it), handling one request at a time.

usage: serialized_moto.py HOST PORT

moto checks a conditional PUT's condition (`If-None-Match: *`) and then stores the object without a
lock, so two writers racing for one name can both be told they won it; S3 decides it atomically. Handled
one at a time, moto decides it as S3 does, and the tests test the engine, not moto's race. Little is
lost: moto handles requests under Python's global interpreter lock anyway.

Two answers of S3 (and of S3-compatible stores) to a conditional PUT that requests handled one at a time
never give by themselves can be asked for: `POST /moto-tests/conditional-puts?path=/<bucket>/<key>&status=S
&count=N` makes the next N conditional PUTs to objects whose path starts with that one get status S:
409 ConditionalRequestConflict (another conditional write to the name is in flight), or 501
NotImplemented (a store that does not implement `If-None-Match`). A GET of the same URL tells how many
are left.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import urllib.parse
from typing import Any, Callable, Dict, Iterable, Tuple

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

ANSWERS = "/moto-tests/conditional-puts"
STATUS_LINES = {409: "409 Conflict", 501: "501 Not Implemented"}
ERRORS = {
    409: b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting '
         b'conditional operation is currently in progress against this resource. Try again.</Message></Error>',
    501: b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A header you provided '
         b'implies functionality that is not implemented</Message><Header>If-None-Match</Header></Error>',
}


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    os.environ.setdefault("MOTO_PORT", str(port))
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()
    answers: Dict[str, Tuple[int, int]] = {}  # path prefix -> (status, how many more)

    def one_at_a_time(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        with lock:
            path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
            if path == ANSWERS:
                query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
                prefix = query["path"][0]
                if method == "POST":
                    answers[prefix] = (int(query["status"][0]), int(query["count"][0]))
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [str(answers.get(prefix, (0, 0))[1]).encode()]
            if method == "PUT" and environ.get("HTTP_IF_NONE_MATCH"):
                for prefix, (status, count) in answers.items():
                    if path.startswith(prefix) and count > 0:
                        answers[prefix] = (status, count - 1)
                        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
                        start_response(STATUS_LINES[status], [("Content-Type", "application/xml")])
                        return [ERRORS[status]]
            return [b"".join(app(environ, start_response))]

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, one_at_a_time, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
