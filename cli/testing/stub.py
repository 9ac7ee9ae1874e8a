"""A stub server for the few answers a real hub does not give: a body cut short, a nesting too deep,
an endpoint another hub implementation lacks. It answers only what its test scripts, request by
request; everything else is a 404. Not a second implementation of the API: each answer is written
in the test that needs it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stub:
    """`answers` maps (method, path with query) to (status, body, headers); a body that is not
    bytes is sent as JSON. `cut` (a path): answer it with a Content-Length longer than the body,
    then hang up. `seen` lists the (method, path) of every request."""

    def __init__(self, answers: dict, cut: str | None = None):
        self.answers, self.cut, self.seen = answers, cut, []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test's output quiet
                pass

            def answer(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                stub.seen.append((self.command, self.path))
                status, body, headers = stub.answers.get((self.command, self.path), (404, {"error": "not found"}, {}))
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                cut = self.path == stub.cut
                self.send_header("Content-Length", str(len(data) + (1000 if cut else 0)))
                self.close_connection = True
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PATCH = answer

        return Handler
