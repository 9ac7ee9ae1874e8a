"""One HTTP request, sent exactly as written, and what came back.

http.client rather than urllib: the kit must send what a check says byte for byte (any method,
odd headers, bodies that are not JSON) and never follow a redirect or add a header of its own but
Host, Content-Length and User-Agent.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
from dataclasses import dataclass, field

from .. import __version__

USER_AGENT = f"ltm-conformance/{__version__} (python)"
SHOWN_BODY = 600  # characters of a body a report shows


@dataclass
class Exchange:
    """A request and its answer (`status` 0 when none came: `problem` says why)."""

    method: str
    url: str
    headers: dict
    body: bytes = b""
    status: int = 0
    answer_headers: dict = field(default_factory=dict)
    answer: bytes = b""
    seconds: float = 0.0
    problem: str = ""

    def json(self):
        """The answer's JSON value, or None when it is not UTF-8 JSON."""
        try:
            return json.loads(self.answer.decode("utf-8"))
        except ValueError:
            return None

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self.answer_headers.items() if key.lower() == wanted), None)

    def request_text(self) -> str:
        lines = [f"{self.method} {self.url}"]
        lines += [f"{key}: {_masked(key, value)}" for key, value in self.headers.items()]
        if self.body:
            lines.append(_shown(self.body))
        return "\n".join(lines)

    def answer_text(self) -> str:
        if self.problem:
            return f"no answer: {self.problem}"
        return f"{self.status} after {self.seconds:.2f}s\n{_shown(self.answer)}".rstrip()


def send(url: str, method: str, *, headers: dict | None = None, body: bytes = b"", timeout: float = 10.0) -> Exchange:
    """Send one request to the absolute `url` and wait at most `timeout` seconds for the whole answer."""
    headers = {"User-Agent": USER_AGENT, **(headers or {})}
    exchange = Exchange(method, url, headers, body)
    parts = urllib.parse.urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = connection_class(parts.netloc, timeout=timeout)
    started = time.monotonic()
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for key, value in headers.items():
            connection.putheader(key, value)
        if body or method in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        # The socket timeout bounds each read; the deadline bounds the whole answer.
        reply = connection.getresponse()
        exchange.status = reply.status
        exchange.answer_headers = dict(reply.getheaders())
        exchange.answer = _read_by(reply, started + timeout)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        exchange.problem = "timed out" if isinstance(exc, (socket.timeout, TimeoutError)) else repr(exc)
    finally:
        connection.close()
        exchange.seconds = time.monotonic() - started
    return exchange


def _read_by(reply, deadline: float) -> bytes:
    chunks = []
    while chunk := reply.read1(65536):
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TimeoutError("the answer was still coming after the time limit")
    return b"".join(chunks)


def _shown(data: bytes) -> str:
    text = data.decode("utf-8", "backslashreplace")
    return text if len(text) <= SHOWN_BODY else text[:SHOWN_BODY] + f"… ({len(data)} bytes)"


def _masked(key: str, value: str) -> str:
    """A bearer token shown by its first characters only: reports end up in CI logs."""
    if key.lower() == "authorization" and value.startswith("Bearer ") and len(value) > 15:
        return value[:15] + "…"
    return value
