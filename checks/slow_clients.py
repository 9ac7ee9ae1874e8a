"""Slow senders against the hub: connections that each declare a request body, send a few bytes of
it and stall, while a health check must still be answered. The stack check
(checks/stack_check.py) holds more of them than the stack has web workers against its proxy;
hub/tests/test_proxy.py does so against proxy.py and web.py, and against web.py alone, which
they freeze (granian hands the hub a request whose body has not arrived, and the hub waits for it
in the worker's one thread).

Only loopback addresses, and every wait is bounded in time.
"""

import selectors
import socket
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

DECLARED = 100_000  # the body's Content-Length
SENT = b"grant_type="  # what is sent of it: 11 bytes
# Requests that read their body: an OAuth token request, a client registration; the caller adds
# an authenticated /v1 push when it has a token.
TARGETS = (
    ("/oauth/token", "application/x-www-form-urlencoded", None),
    ("/oauth/register", "application/json", None),
)


@dataclass
class Held:
    """What happened while the slow senders held their connections."""

    health: float | None  # seconds /v1/healthz took to answer; None: not within the limit
    # one per slow connection: (seconds from its last byte sent to the server's answer, what the
    # server did: an HTTP status code or "closed"), or None when it kept the connection open
    ends: list[tuple[float, str] | None] = field(default_factory=list)


def _open(base: str, path: str, content_type: str, token: str | None) -> tuple[socket.socket, float]:
    url = urllib.parse.urlsplit(base)
    if url.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"slow senders go to loopback only, not {url.hostname}")
    connection = socket.create_connection((url.hostname, url.port or 80), timeout=5)
    head = [f"POST {path} HTTP/1.1", f"Host: {url.netloc}", f"Content-Type: {content_type}"]
    head += [f"Content-Length: {DECLARED}"] + ([f"Authorization: Bearer {token}"] if token else [])
    connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + SENT)
    return connection, time.monotonic()


def _end(connection: socket.socket) -> str:
    try:
        answer = connection.recv(4096)
    except OSError:  # reset
        return "closed"
    if not answer:
        return "closed"
    status = answer.split(b"\r\n", 1)[0].split()
    return status[1].decode("ascii", "replace") if len(status) > 1 else "closed"


def hold(base: str, count: int, *, health_within: float = 2.0, ends_within: float, token: str | None = None) -> Held:
    """Open `count` slow connections to `base` (spread over TARGETS, plus a push to /v1/packets
    when given a `token`), ask `base`/v1/healthz with `health_within` seconds to answer, then wait
    up to `ends_within` seconds from the last byte sent for the server to answer or close each."""
    targets = [*TARGETS, *([("/v1/packets", "application/json", token)] if token else [])]
    opened = [_open(base, *targets[n % len(targets)]) for n in range(count)]
    held = Held(health=None, ends=[None] * count)
    try:
        time.sleep(0.5)  # the requests reach the server before the health check does
        started = time.monotonic()
        try:
            urllib.request.urlopen(base + "/v1/healthz", timeout=health_within).close()
            held.health = time.monotonic() - started
        except OSError:
            pass
        with selectors.DefaultSelector() as waiting:
            for index, (connection, _) in enumerate(opened):
                waiting.register(connection, selectors.EVENT_READ, index)
            deadline = max(sent for _, sent in opened) + ends_within
            while waiting.get_map() and time.monotonic() < deadline:
                for key, _ in waiting.select(timeout=max(0.0, deadline - time.monotonic())):
                    connection, sent = opened[key.data]
                    held.ends[key.data] = (time.monotonic() - sent, _end(connection))
                    waiting.unregister(connection)
    finally:
        for connection, _ in opened:
            connection.close()
    return held
